/**
 * A small RFC 6266 / RFC 8187 `Content-Disposition` parser (browser-safe: the `content-disposition`
 * npm package imports `node:path`, which the main entry must avoid).
 */

export interface ContentDisposition {
  type: string;
  parameters: Record<string, string>;
  /** `filename*` (decoded) if present, else `filename`; path components stripped. */
  filename: string | undefined;
}

const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+/;

function decodeExtValue(value: string): string | undefined {
  const m = /^([A-Za-z0-9!#$%&+^_`{}~-]+)'[A-Za-z0-9-]*'(.*)$/.exec(value);
  if (!m) return undefined;
  const charset = (m[1] ?? '').toLowerCase();
  const encoded = m[2] ?? '';
  try {
    if (charset === 'utf-8') return decodeURIComponent(encoded);
    if (charset === 'iso-8859-1') {
      return encoded.replace(/%([0-9A-Fa-f]{2})/g, (_, hex: string) =>
        String.fromCharCode(Number.parseInt(hex, 16)),
      );
    }
  } catch {
    return undefined;
  }
  return undefined;
}

function basename(name: string): string {
  const parts = name.split(/[\\/]/);
  return parts[parts.length - 1] ?? name;
}

/** Parses a header value; returns `undefined` for an empty or unparsable header. */
export function parseContentDisposition(header: string | null | undefined): ContentDisposition | undefined {
  if (!header) return undefined;
  let rest = header.trim();
  const typeMatch = TOKEN.exec(rest);
  if (!typeMatch) return undefined;
  const type = typeMatch[0].toLowerCase();
  rest = rest.slice(typeMatch[0].length);
  const parameters: Record<string, string> = {};
  while (rest.length > 0) {
    rest = rest.replace(/^\s*;?\s*/, '');
    if (rest === '') break;
    const keyMatch = TOKEN.exec(rest);
    if (!keyMatch) return undefined;
    const key = keyMatch[0].toLowerCase();
    rest = rest.slice(keyMatch[0].length).replace(/^\s*/, '');
    if (!rest.startsWith('=')) return undefined;
    rest = rest.slice(1).replace(/^\s*/, '');
    let value: string;
    if (rest.startsWith('"')) {
      let i = 1;
      value = '';
      for (; i < rest.length; i++) {
        const ch = rest[i];
        if (ch === '\\' && i + 1 < rest.length) {
          value += rest[i + 1];
          i++;
        } else if (ch === '"') {
          break;
        } else {
          value += ch;
        }
      }
      if (i >= rest.length) return undefined;
      rest = rest.slice(i + 1);
    } else {
      // Lenient: a bare value runs to the next ';' (servers send unquoted names with spaces/dots).
      const end = rest.indexOf(';');
      value = (end === -1 ? rest : rest.slice(0, end)).trim();
      rest = end === -1 ? '' : rest.slice(end);
    }
    if (!(key in parameters)) parameters[key] = value;
  }
  let filename: string | undefined;
  const ext = parameters['filename*'];
  if (ext !== undefined) filename = decodeExtValue(ext);
  if (filename === undefined) filename = parameters.filename;
  return { type, parameters, filename: filename === undefined ? undefined : basename(filename) };
}

/** Formats a header value; the inverse of {@link parseContentDisposition} for the `filename` it sets. */
export function formatContentDisposition(filename: string, type = 'attachment'): string {
  const ascii = /^[\x20-\x7e]*$/.test(filename);
  const quoted = `"${filename.replace(/[\\"]/g, (c) => `\\${c}`)}"`;
  if (ascii) return `${type}; filename=${quoted}`;
  const fallback = `"${filename.replace(/[^\x20-\x7e]/g, '?').replace(/[\\"]/g, (c) => `\\${c}`)}"`;
  const encoded = encodeURIComponent(filename).replace(
    /['()*]/g,
    (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`,
  );
  return `${type}; filename=${fallback}; filename*=UTF-8''${encoded}`;
}
