import { type FormEvent, useState } from 'react';
import { type FormErrors, NO_ERRORS, toFormErrors } from './form-errors';

/**
 * A form's submit: runs the action, and on failure keeps every value the user typed (the form's
 * state is untouched) and shows the API's errors next to the form's fields.
 */
export function useSubmit(fields: readonly string[], action: () => Promise<void>) {
  const [busy, setBusy] = useState(false);
  const [errors, setErrors] = useState<FormErrors>(NO_ERRORS);
  const submit = async (event?: FormEvent) => {
    event?.preventDefault();
    setBusy(true);
    setErrors(NO_ERRORS);
    try {
      await action();
    } catch (error) {
      setErrors(toFormErrors(error, fields));
    } finally {
      setBusy(false);
    }
  };
  return { submit, busy, errors, setErrors };
}
