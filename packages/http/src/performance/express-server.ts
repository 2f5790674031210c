import http, { type IncomingMessage, type ServerOptions, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { Express } from 'express';

// Node passes the response its options ({ highWaterMark, ... }); its types do not declare them.
type ResponseOptions = object;
type RequestConstructor = (this: IncomingMessage, socket: Socket) => void;
type ResponseConstructor = (this: ServerResponse, req: IncomingMessage, options?: ResponseOptions) => void;

const isClass = (constructor: unknown) => /^class\b/.test(Function.prototype.toString.call(constructor));

/**
 * An http.Server for an Express app whose requests and responses are born with the app's
 * prototypes (`app.request`, `app.response`).
 *
 * Express gives each request and response its helpers by changing their prototype with
 * `Object.setPrototypeOf`. V8 then treats every later property access of those objects, in
 * Node's HTTP code and in ours, as a new shape: its inline caches miss and it looks properties up
 * the slow way (a profile of the services under load: `LookupIterator`, `LoadIC_Miss` and
 * `MigrateToMap` at the top). Built on the right prototype, the objects keep one shape, and
 * Express's own `setPrototypeOf` finds the prototype already in place and changes nothing. A
 * bare Express route served this way answered about twice the requests per second
 * (docs/benchmarks.md).
 *
 * Node builds them with `new options.IncomingMessage(socket)` and
 * `new options.ServerResponse(req, options)`; the constructors here run Node's own on the new
 * object. Were Node's ever ES classes (which cannot be called that way), this is plain
 * `http.createServer`.
 */
export function createExpressServer(app: Express, options: ServerOptions = {}): http.Server {
  if (isClass(http.IncomingMessage) || isClass(http.ServerResponse)) return http.createServer(options, app);
  const incomingMessage = http.IncomingMessage as unknown as RequestConstructor;
  const serverResponse = http.ServerResponse as unknown as ResponseConstructor;
  function AppRequest(this: IncomingMessage, socket: Socket) {
    incomingMessage.call(this, socket);
  }
  AppRequest.prototype = app.request;
  function AppResponse(this: ServerResponse, req: IncomingMessage, responseOptions?: ResponseOptions) {
    serverResponse.call(this, req, responseOptions);
  }
  AppResponse.prototype = app.response;
  return http.createServer(
    {
      ...options,
      IncomingMessage: AppRequest as unknown as typeof http.IncomingMessage,
      ServerResponse: AppResponse as unknown as typeof http.ServerResponse,
    },
    app,
  );
}
