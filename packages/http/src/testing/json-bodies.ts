import fc from 'fast-check';

/**
 * Request bodies for property-based tests of JSON routes: anything JSON can carry, with the odd
 * text that breaks databases (lone surrogates, NUL, full Unicode), huge and tiny numbers, deep
 * nesting and wrong types. Besides free JSON, one or two of the route's `fields` are set to
 * such values over a `valid` body, so the odd value gets past the other checks and reaches the
 * service and the database.
 */
export function jsonBodies(fields: readonly string[] = [], valid: Record<string, unknown> = {}): fc.Arbitrary<unknown> {
  // Full Unicode strings hold a lone surrogate or NUL only rarely: mix them in on purpose.
  const breaker = fc.constantFrom('\ud800', '\udfff', '\ud83d', '\u0000');
  const oddText = fc.oneof(
    fc.string({ unit: 'binary' }),
    fc.string({ unit: 'grapheme', maxLength: 30 }),
    fc.tuple(fc.string({ maxLength: 10 }), breaker, fc.string({ maxLength: 10 })).map((parts) => parts.join('')),
    fc.constantFrom(
      '\ufeff',
      '\u202e',
      '%00',
      "'; DROP TABLE x; --",
      '',
      ' ',
      '0',
      '-1',
      'null',
      '1e309',
      '9'.repeat(40),
      'http://127.0.0.1/',
      'ádmin@example.com',
      '2024-02-30T00:00:00Z',
      '00000000-0000-0000-0000-000000000000',
    ),
  );
  const oddNumber = fc.oneof(
    fc.integer(),
    fc.double({ noNaN: true, noDefaultInfinity: true }),
    fc.maxSafeInteger(),
    fc.constantFrom(0, -0, 1e308, -1e308, 5e-324, 2 ** 31, 2 ** 53 + 2, -(2 ** 63), 1_000_001, 36_501),
  );
  const { value } = fc.letrec<{ value: unknown }>((tie) => ({
    value: fc.oneof(
      { depthSize: 'small', withCrossShrink: true },
      oddText,
      oddNumber,
      fc.boolean(),
      fc.constant(null),
      fc.array(tie('value'), { maxLength: 5 }),
      fc.dictionary(oddText, tie('value'), { maxKeys: 5 }),
      fc.dictionary(fields.length ? fc.constantFrom(...fields) : oddText, tie('value'), { maxKeys: 5 }),
    ),
  }));
  // Nesting far deeper than any schema expects (a JSON column has a depth limit of its own).
  const deep = fc.tuple(fc.integer({ min: 50, max: 3000 }), fc.boolean()).map(([depth, asArray]) => {
    let nested: unknown = 'bottom';
    for (let level = 0; level < depth; level++) nested = asArray ? [nested] : { a: nested };
    return nested;
  });
  // Mostly the types a field usually has (text, an object of text, a number), holding odd values.
  const textObject = fc.dictionary(oddText, fc.oneof(oddText, oddNumber), { minKeys: 1, maxKeys: 3 });
  const fieldValue = fc.oneof(
    { arbitrary: oddText, weight: 4 },
    { arbitrary: textObject, weight: 3 },
    { arbitrary: oddNumber, weight: 2 },
    { arbitrary: fc.array(fc.oneof(textObject, oddText), { minLength: 1, maxLength: 3 }), weight: 1 },
    { arbitrary: value, weight: 1 },
    { arbitrary: deep, weight: 1 },
  );
  const free = fc.oneof(
    fc.jsonValue(),
    value,
    deep,
    fc.dictionary(oddText, value),
    fc.array(fc.dictionary(fc.constantFrom(...fields, 'x'), fieldValue), { maxLength: 2 }),
  );
  // Each field as likely as free JSON: a field that needs an object (metadata) is reached too.
  const oneField = (field: string) => fieldValue.map((odd) => ({ ...valid, [field]: odd }));
  const twoFields =
    fields.length < 2
      ? []
      : [
          fc
            .subarray([...fields], { minLength: 2, maxLength: 2 })
            .chain((pair) =>
              fc
                .tuple(fieldValue, fieldValue)
                .map(([first, second]) => ({ ...valid, [pair[0]!]: first, [pair[1]!]: second })),
            ),
        ];
  return fc.oneof(free, free, ...twoFields, ...fields.map(oneField));
}

/** Runs per route in the fuzz tests: `perField` for each body field and twice that of free JSON; bounded for a small machine. */
export function fuzzRuns(fields: readonly string[]): number {
  const perField = Number(process.env.FUZZ_RUNS_PER_FIELD ?? 12);
  return perField * (fields.length + 3);
}

/** `POST /api/licenses/{}`: a route with its path parameters, whatever their names, as `{}`. */
export const normalisedRoute = (method: string, path: string): string =>
  `${method.toUpperCase()} ${path.replace(/\{[^}]+\}/g, '{}')}`;

/** The routes of an OpenAPI document that declare a request body, normalised as `normalisedRoute`. */
export function routesWithRequestBody(document: {
  paths: Record<string, Record<string, { requestBody?: unknown }>>;
}): string[] {
  return Object.entries(document.paths).flatMap(([path, operations]) =>
    Object.entries(operations)
      .filter(([, operation]) => operation.requestBody !== undefined)
      .map(([method]) => normalisedRoute(method, path)),
  );
}
