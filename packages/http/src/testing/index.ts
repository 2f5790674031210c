export { requireForTests, findChromium, chromiumForTests } from './prerequisites.js';
export { startServiceProcess, type ServiceProcess } from './service-process.js';
export { fuzzRuns, jsonBodies, normalisedRoute, routesWithRequestBody } from './json-bodies.js';
export { lintOpenApi, type LintProblem } from './openapi-lint.js';
