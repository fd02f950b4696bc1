import { useCallback, useEffect, useLayoutEffect, useRef, useState } from 'react';
import { ApiError } from './client';

export interface Resource<T> {
  data?: T;
  error?: ApiError;
  loading: boolean;
  reload(): Promise<void>;
}

interface Loading<T> {
  data?: T;
  error?: ApiError;
  loading: boolean;
}

const asApiError = (caught: unknown) => (caught instanceof ApiError ? caught : new ApiError(0, 'UNKNOWN', 'Something went wrong.'));
const sameDeps = (a: readonly unknown[], b: readonly unknown[]) => a.length === b.length && a.every((each, index) => Object.is(each, b[index]));

/**
 * Loads what `load` returns and loads again when `deps` change (the hooks lint checks callers'
 * `deps` like an effect's: eslint.config.mjs names this hook); `reload` after a change. An answer
 * to an older `deps` arriving late is dropped, so a quick change of page never shows stale data.
 */
export function useResource<T>(load: () => Promise<T>, deps: readonly unknown[]): Resource<T> {
  const [state, setState] = useState<Loading<T>>({ loading: true });
  // The deps last seen, and a number that moves when they change: the effect below runs on it.
  const [seen, setSeen] = useState({ deps, version: 0 });
  let version = seen.version;
  if (!sameDeps(seen.deps, deps)) {
    // Adjusting state while rendering (React's pattern for "when a prop changes"): no extra effect pass.
    version += 1;
    setSeen({ deps, version });
    setState((current) => ({ ...current, loading: true }));
  }
  const latestLoad = useRef(load);
  useLayoutEffect(() => {
    latestLoad.current = load;
  });

  useEffect(() => {
    let current = true;
    latestLoad.current().then(
      (data) => current && setState({ data, loading: false }),
      (caught: unknown) => current && setState((previous) => ({ ...previous, error: asApiError(caught), loading: false })),
    );
    return () => {
      current = false;
    };
  }, [version]);

  const reload = useCallback(async () => {
    setState((current) => ({ ...current, loading: true }));
    try {
      const data = await latestLoad.current();
      setState({ data, loading: false });
    } catch (caught) {
      setState((current) => ({ ...current, error: asApiError(caught), loading: false }));
    }
  }, []);
  return { ...state, reload };
}
