/**
 * @agentgov/adapter-express — mounts a governance handler on Express 5. Translation only: the
 * request and response go to the gateway's Node path (`governance.handleNode`), which answers
 * straight on Node's response; what a body parser already read is handed over.
 */
import type { Governance } from '@agentgov/gateway';
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
 * requests go to `next()`. Use it at the application root: `app.use(mount(gov))`. The client
 * address comes from the governance's own `trustProxy` setting, not from Express's `trust proxy`.
 */
export function mount(governance: Governance, options: ExpressMountOptions = {}): RequestHandler {
  const base = governance.basePath;
  return (req: ExpressRequest, res: ExpressResponse, next: NextFunction) => {
    const url = req.originalUrl;
    const q = url.indexOf('?');
    const path = q < 0 ? url : url.slice(0, q);
    if (path !== base && !path.startsWith(`${base}/`)) {
      next();
      return;
    }
    const withRaw = req as ExpressRequest & { rawBody?: Uint8Array | string };
    governance
      .handleNode(req, res, {
        url,
        rawBody: withRaw.rawBody,
        parsedBody: req.body as unknown,
        ...(options.protocol ? { protocol: options.protocol } : {}),
      })
      .catch(next);
  };
}
