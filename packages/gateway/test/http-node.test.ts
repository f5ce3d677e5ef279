import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { sendFetchResponse, toFetchRequest } from '../src/index';
import { describeHttpSuite } from '../src/testing/index';

// The suite against the bare node:http bridge the adapters share.
describeHttpSuite('node:http', async (governance) => {
  const server = createServer((req, res) => {
    const request = toFetchRequest(req, res);
    governance
      .handle(request, { remoteAddress: req.socket.remoteAddress ?? '' })
      .then((response) => sendFetchResponse(res, response))
      .catch(() => res.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
});
