import { ApiError } from '../api/client';

export interface FormErrors {
  /** Messages by field name, from the envelope's error.details. */
  fields: Record<string, string>;
  /** What belongs to no field of the form, in words for people. */
  form?: string;
}

export const NO_ERRORS: FormErrors = { fields: {} };

/**
 * The one place an API error becomes what a form shows: each detail next to the field it names
 * (when the form has it), everything else as one sentence above the form. Never the raw envelope.
 */
export function toFormErrors(error: unknown, fields: readonly string[]): FormErrors {
  if (!(error instanceof ApiError)) return { fields: {}, form: 'Something went wrong. Please try again.' };
  const byField: Record<string, string> = {};
  const elsewhere: string[] = [];
  for (const detail of error.details) {
    const field = detail.field.split(/[.[]/)[0];
    if (fields.includes(field) && !byField[field]) byField[field] = sentence(detail.message);
    else elsewhere.push(`${detail.field} ${detail.message}`);
  }
  const form = error.details.length === 0 ? error.message : elsewhere.length ? sentence(elsewhere.join('; ')) : undefined;
  return { fields: byField, form };
}

const sentence = (text: string) => text.charAt(0).toUpperCase() + text.slice(1) + (/[.!?]$/.test(text) ? '' : '.');
