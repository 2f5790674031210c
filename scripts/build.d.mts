/** Types of build.mjs (plain JavaScript so that the Docker build runs it with node alone). */
export function buildTarget(name: 'paste' | 'license' | 'dev-idp', options?: { outDir?: string }): Promise<string>;
