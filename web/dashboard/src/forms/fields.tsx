import { type InputHTMLAttributes, type ReactNode, useId } from 'react';
import type { FormErrors } from './form-errors';

interface FieldProps extends Omit<InputHTMLAttributes<HTMLInputElement>, 'onChange' | 'value'> {
  label: string;
  name: string;
  value: string;
  onChange: (value: string) => void;
  errors: FormErrors;
  hint?: ReactNode;
  multiline?: boolean;
}

/** A labelled input (or textarea) with its hint and its error, tied to it for screen readers. */
export function Field({ label, name, value, onChange, errors, hint, multiline, ...input }: FieldProps) {
  const id = useId();
  const error = errors.fields[name];
  const described = [hint ? `${id}-hint` : '', error ? `${id}-error` : ''].filter(Boolean).join(' ') || undefined;
  const common = { id, name, value, 'aria-invalid': error ? true : undefined, 'aria-describedby': described };
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      {hint && (
        <p className="hint" id={`${id}-hint`}>
          {hint}
        </p>
      )}
      {multiline ? (
        <textarea {...common} rows={8} required={input.required} maxLength={input.maxLength} onChange={(event) => onChange(event.target.value)} />
      ) : (
        <input {...input} {...common} onChange={(event) => onChange(event.target.value)} />
      )}
      {error && (
        <p className="field-error" id={`${id}-error`}>
          Error: {error}
        </p>
      )}
    </div>
  );
}

/** The error that belongs to no single field, announced when it appears. */
export function FormError({ errors }: { errors: FormErrors }) {
  return errors.form ? (
    <p className="form-error" role="alert">
      Error: {errors.form}
    </p>
  ) : null;
}
