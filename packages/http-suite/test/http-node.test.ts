import { sendFetchResponse, toFetchRequest } from '@agentgov/gateway';
import { listen } from '@agentgov/gateway/testing';
import { describeHttpSuite } from '../src/index';

// The suite against the bare node:http bridge the adapters share.
describeHttpSuite('node:http', (governance) =>
  listen((req, res) => {
    const request = toFetchRequest(req, res);
    governance
      .handle(request, { remoteAddress: req.socket.remoteAddress ?? '' })
      .then((response) => sendFetchResponse(res, response))
      .catch(() => res.destroy());
  }),
);
