// The access matrix against the bare node:http bridge (the adapters' tests run it on Express and Koa).
import { sendFetchResponse, toFetchRequest } from '@agentgov/gateway';
import { listen } from '@agentgov/gateway/testing';
import { describeAccessMatrix } from '../src/index';

describeAccessMatrix('node:http', (governance) =>
  listen((req, res) => {
    governance
      .handle(toFetchRequest(req, res), { remoteAddress: req.socket.remoteAddress ?? '' })
      .then((response) => sendFetchResponse(res, response))
      .catch(() => res.destroy());
  }),
);
