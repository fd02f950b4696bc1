import type { FieldError } from '../errors/app-error';

/** Deeper than this, a request's JSON is refused: no field of the API nests more than three levels. */
export const MAX_INPUT_DEPTH = 32;

/** Names of Object.prototype members: class-transformer skips them, so the whitelist never sees them. */
const PROTOTYPE_NAMES = new Set([...Object.getOwnPropertyNames(Object.prototype), '__proto__']);

/**
 * Checks raw input (a query or a parsed body) for what the DTO rules cannot see or would crash on:
 * nesting deep enough to overflow the stack while transforming, strings PostgreSQL cannot store
 * (NUL) or that are not valid Unicode (lone surrogates), and keys named like Object.prototype
 * members. Walks at most MAX_INPUT_DEPTH levels, so the check itself cannot overflow.
 */
export function inspectInput(value: unknown, root: string): FieldError[] {
  const problems: FieldError[] = [];
  const walk = (node: unknown, path: string, depth: number): void => {
    if (problems.length >= 10) return;
    if (typeof node === 'string') {
      if (node.includes('\u0000')) problems.push({ field: path, message: 'must not contain NUL (U+0000) characters' });
      else if (!node.isWellFormed()) problems.push({ field: path, message: 'must be valid Unicode text' });
      return;
    }
    if (node === null || typeof node !== 'object') return;
    if (depth >= MAX_INPUT_DEPTH) {
      problems.push({ field: path, message: `is nested more than ${MAX_INPUT_DEPTH} levels deep` });
      return;
    }
    if (Array.isArray(node)) {
      node.forEach((item, index) => walk(item, `${path}[${index}]`, depth + 1));
      return;
    }
    for (const key of Object.keys(node)) {
      const field = path ? `${path}.${key}` : key;
      if (PROTOTYPE_NAMES.has(key)) problems.push({ field, message: 'is not an allowed field' });
      else walk((node as Record<string, unknown>)[key], field, depth + 1);
    }
  };
  walk(value, root, 0);
  return problems;
}
