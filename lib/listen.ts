// Listening and closing for the node:http servers of the project (the gateway, the simulated
// provider, the benchmark's upstream mock and bare proxy): one place that resolves once listening,
// rejects on a listen error, and spells the URL (an IPv6 address in brackets).
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** Listen on `port` (0: any free one) and `host`; resolves with the server's `http://host:port` URL. */
export async function listen(server: Server, port: number, host: string): Promise<string> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const addr = server.address() as AddressInfo;
  const h = addr.family === 'IPv6' ? `[${addr.address}]` : addr.address;
  return `http://${h}:${addr.port}`;
}

/** Stop accepting and cut every connection, idle or not; resolves once the server closed. */
export function closeNow(server: Server): Promise<void> {
  return new Promise<void>((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections();
  });
}
