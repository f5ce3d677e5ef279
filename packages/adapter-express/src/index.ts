/**
 * @agentgov/adapter-express — mounts a governance handler on Express 5. Translation only:
 * Express request → Fetch Request → `governance.handle` → Fetch Response → Express response.
 */
import { type Governance, sendFetchResponse, toFetchRequest } from '@agentgov/gateway';
import type {
  Request as ExpressRequest,
  Response as ExpressResponse,
  NextFunction,
  RequestHandler,
} from 'express';

export interface ExpressMountOptions {
  /** Scheme of the public URL when TLS ends before Express (default: from the socket). */
  protocol?: 'http' | 'https';
}

/**
 * An Express middleware serving every request under `governance.basePath` (`/api/v1`); other
 * requests go to `next()`. Use it at the application root: `app.use(mount(gov))`.
 */
export function mount(governance: Governance, options: ExpressMountOptions = {}): RequestHandler {
  const base = governance.basePath;
  return (req: ExpressRequest, res: ExpressResponse, next: NextFunction) => {
    const path = req.originalUrl.split('?')[0] ?? '';
    if (path !== base && !path.startsWith(`${base}/`)) {
      next();
      return;
    }
    const withRaw = req as ExpressRequest & { rawBody?: Uint8Array | string };
    const request = toFetchRequest(req, res, {
      url: req.originalUrl,
      rawBody: withRaw.rawBody,
      parsedBody: req.body as unknown,
      ...(options.protocol ? { protocol: options.protocol } : {}),
    });
    const remoteAddress = req.socket.remoteAddress;
    governance
      .handle(request, remoteAddress ? { remoteAddress } : {})
      .then((response) => sendFetchResponse(res, response))
      .catch(next);
  };
}
