# One multi-stage image definition for both services; docker-compose.yml picks the app with
# the APP build argument (paste or license).
ARG NODE_VERSION=22-bookworm-slim

# --- dependencies: resolved from the lock file only, so this layer is cached across code changes
FROM node:${NODE_VERSION} AS deps
WORKDIR /app
RUN npm install -g pnpm@10.34.8
COPY package.json pnpm-lock.yaml pnpm-workspace.yaml ./
COPY packages/auth/package.json packages/auth/
COPY packages/config/package.json packages/config/
COPY packages/db/package.json packages/db/
COPY packages/dev-idp/package.json packages/dev-idp/
COPY packages/events/package.json packages/events/
COPY packages/http/package.json packages/http/
COPY packages/rate-limit/package.json packages/rate-limit/
COPY packages/settings/package.json packages/settings/
COPY apps/paste/package.json apps/paste/
COPY apps/license/package.json apps/license/
RUN pnpm install --frozen-lockfile

# --- check: the sources type-check before an image is made of them
FROM deps AS build
COPY . .
RUN pnpm exec tsc -p tsconfig.json --noEmit

# --- runtime: sources and dependencies, no build tools, an unprivileged user
FROM node:${NODE_VERSION} AS runtime
ARG APP=paste
ENV NODE_ENV=production APP=${APP} DATA_DIR=/data
WORKDIR /app
COPY --from=build --chown=node:node /app /app
RUN mkdir -p /data && chown node:node /data
USER node
VOLUME ["/data"]
EXPOSE 8080 3000
HEALTHCHECK --interval=10s --timeout=3s --retries=5 CMD node -e "fetch('http://127.0.0.1:' + (process.env.APP === 'license' ? (process.env.LICENSE_PORT || process.env.PORT || 3000) : (process.env.PASTE_PORT || 8080)) + '/readyz').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"
CMD ["sh", "-c", "exec node_modules/.bin/tsx apps/${APP}/src/main.ts"]
