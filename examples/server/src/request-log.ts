/**
 * One line per request: method, path (never the query string: it can carry an authorization
 * code), status, duration and request id. Nothing from the headers — no token, cookie or secret.
 */
import type http from 'node:http';

export type LogLine = (line: string) => void;

export function withRequestLog(listener: http.RequestListener, log: LogLine): http.RequestListener {
  return (req, res) => {
    const started = process.hrtime.bigint();
    const method = req.method ?? '-';
    const path = (req.url ?? '/').split('?')[0]?.slice(0, 512) ?? '/';
    const done = (aborted: boolean) => {
      const ms = Number(process.hrtime.bigint() - started) / 1e6;
      const id = res.getHeader('x-request-id');
      const line = [
        new Date().toISOString(),
        method,
        JSON.stringify(path).slice(1, -1),
        aborted ? `${res.statusCode}(aborted)` : String(res.statusCode),
        `${ms.toFixed(1)}ms`,
        `id=${typeof id === 'string' ? id : '-'}`,
      ];
      log(line.join(' '));
    };
    res.once('finish', () => done(false));
    res.once('close', () => {
      if (!res.writableFinished) done(true);
    });
    listener(req, res);
  };
}
