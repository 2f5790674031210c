/**
 * The HAProxy configuration of the rehearsal: one frontend per service, round robin over its
 * instances. Health checks ask /readyz every 400 ms (two failures: out; two answers: in), so a
 * draining instance (SHUTDOWN_DRAIN_MS) leaves before it stops listening. A connection refused
 * (an instance killed) is retried on another instance; `http-server-close` opens a connection
 * per request, so no request is sent on a connection an instance is closing.
 */
export function haproxyConfig(services: { name: string; port: number; instances: number[] }[]): string {
  const lines = [
    'global',
    '  maxconn 4096',
    'defaults',
    '  mode http',
    '  timeout connect 2s',
    '  timeout client 30s',
    '  timeout server 30s',
    '  option http-server-close',
    '  option forwardfor',
    '  option redispatch',
    '  retries 3',
    // A connection an instance killed closes without an answer: the request goes to another.
    '  retry-on conn-failure empty-response',
    // A slow answer is not a failed check (a loaded machine); a draining instance answers 503 at once.
    '  timeout check 3s',
    '  default-server inter 400ms fastinter 200ms downinter 400ms rise 2 fall 2',
  ];
  for (const service of services) {
    lines.push(
      `frontend ${service.name}_in`,
      `  bind 127.0.0.1:${service.port}`,
      // The instances trust two hops (TRUST_PROXY=2): this header makes sign-in cookies secure-capable.
      '  http-request set-header X-Forwarded-Proto https',
      `  default_backend ${service.name}`,
      `backend ${service.name}`,
      '  balance roundrobin',
      '  option httpchk GET /readyz',
      '  http-check expect status 200',
      ...service.instances.map((port, index) => `  server ${service.name}${index + 1} 127.0.0.1:${port} check`),
    );
  }
  return `${lines.join('\n')}\n`;
}
