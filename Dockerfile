# One image definition for each service of the workspace; the TARGET build argument picks it:
# apps/paste (default), apps/license, or packages/dev-idp (the demo's sign-in provider).
# docker-compose.yml builds all three. The runtime image holds the compiled JavaScript of that
# one service and its production dependencies, and runs as the unprivileged user "node".
ARG NODE_VERSION=22-bookworm-slim

# --- the workspace's manifests only: the install layers below stay cached across code changes
FROM node:${NODE_VERSION} AS manifests
RUN npm install -g pnpm@10.34.8
WORKDIR /app
COPY package.json pnpm-lock.yaml pnpm-workspace.yaml ./
COPY apps/paste/package.json apps/paste/
COPY apps/license/package.json apps/license/
COPY packages/auth/package.json packages/auth/
COPY packages/config/package.json packages/config/
COPY packages/db/package.json packages/db/
COPY packages/dev-idp/package.json packages/dev-idp/
COPY packages/events/package.json packages/events/
COPY packages/http/package.json packages/http/
COPY packages/rate-limit/package.json packages/rate-limit/
COPY packages/settings/package.json packages/settings/
COPY packages/ui/package.json packages/ui/
COPY packages/paste-cli/package.json packages/paste-cli/

# --- build: every dependency, type-check, then `npm run build` (esbuild: dist/main.js per service)
FROM manifests AS build
RUN pnpm install --frozen-lockfile
COPY . .
RUN pnpm exec tsc -p tsconfig.json --noEmit && node scripts/build.mjs
ARG TARGET=apps/paste
# What the service reads at run time beside its bundle: migrations, static files, page views,
# the pages' messages in each language (locales), the shared UI kit's stylesheet, script,
# partials and messages (found through node_modules/@app/ui), and the
# encrypted paste format the pages load (/static/envelope.js, shared with packages/paste-cli).
RUN mkdir -p /out/${TARGET} /out/packages/ui && for folder in dist drizzle public views locales; do \
      if [ -d "${TARGET}/${folder}" ]; then cp -r "${TARGET}/${folder}" "/out/${TARGET}/"; fi; \
    done && cp -r packages/ui/assets packages/ui/views packages/ui/locales /out/packages/ui/ \
    && mkdir -p /out/packages/paste-cli/src && cp packages/paste-cli/src/envelope.js /out/packages/paste-cli/src/

# --- the production dependencies of the one service (its bundle declares every package it imports)
FROM manifests AS production-dependencies
ARG TARGET=apps/paste
RUN pnpm install --prod --frozen-lockfile --filter "./${TARGET}"

# --- runtime: node, the service's production dependencies and its compiled JavaScript
FROM node:${NODE_VERSION} AS runtime
ARG TARGET=apps/paste
# Two malloc arenas and a 2 MB young generation, as npm start runs it (scripts/service-runtime.ts).
ENV NODE_ENV=production DATA_DIR=/data TARGET=${TARGET} MALLOC_ARENA_MAX=2
WORKDIR /app
COPY --from=production-dependencies /app /app
COPY --from=build /out/ /app/
COPY scripts/healthcheck.mjs /app/healthcheck.mjs
RUN mkdir -p /data && chown node:node /data
USER node
VOLUME ["/data"]
EXPOSE 8080 3000 9000
HEALTHCHECK --interval=15s --timeout=5s --start-period=120s --retries=4 CMD ["node", "/app/healthcheck.mjs"]
CMD ["sh", "-c", "exec node --enable-source-maps --expose-gc \"${TARGET}/dist/main.js\""]
