import { Transform } from 'class-transformer';

/** Turns a query-string integer into a number; anything else stays as sent, so the rule rejects it. */
export const ToInteger = () => Transform(({ value }) => (typeof value === 'string' && /^-?\d{1,15}$/.test(value) ? Number(value) : value));

/** Turns a query-string `true` or `false` into a boolean; anything else stays as sent, so the rule rejects it. */
export const ToBoolean = () => Transform(({ value }) => (value === 'true' ? true : value === 'false' ? false : value));

/** Trims strings; other types are left for the type rule to reject. */
export const Trim = () => Transform(({ value }) => (typeof value === 'string' ? value.trim() : value));

/** Trims every string of an array. */
export const TrimEach = () => Transform(({ value }) => (Array.isArray(value) ? value.map((item) => (typeof item === 'string' ? item.trim() : item)) : value));
