// Path pieces several API areas build their requests from.

/** One path segment, percent-encoded. */
export const seg = (value: string | number) => encodeURIComponent(String(value));
