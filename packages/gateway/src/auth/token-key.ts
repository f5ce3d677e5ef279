/**
 * The verified-token cache's key of a Bearer token: its SHA-256 (base64url). A client sends the
 * same token on request after request, so the key of the last token seen is kept with it and
 * answered again when the next token is the same string (a string comparison instead of a hash of
 * the ~1 kB token on every request); any other token is hashed, and becomes the remembered one.
 */
import { hash } from 'node:crypto';

/** The SHA-256 (base64url) of a token: the cache's key. */
export function tokenHash(token: string): string {
  return hash('sha256', token, 'base64url');
}

/** `tokenHash`, remembering the last token's answer (see the module comment). */
export function tokenKeys(): (token: string) => string {
  let lastToken: string | undefined;
  let lastKey = '';
  return (token) => {
    if (token === lastToken) return lastKey;
    const key = tokenHash(token);
    lastToken = token;
    lastKey = key;
    return key;
  };
}
