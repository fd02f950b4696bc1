import type { ReactNode } from 'react';
import type { Resource } from '../api/use-resource';

/** Loading, error and empty states around a resource's content. */
export function Loaded<T>({
  resource,
  empty,
  isEmpty,
  children,
}: {
  resource: Resource<T>;
  empty?: ReactNode;
  isEmpty?: (data: T) => boolean;
  children: (data: T) => ReactNode;
}) {
  if (resource.error)
    return (
      <p className="form-error" role="alert">
        Error: {resource.error.message}
      </p>
    );
  if (resource.data === undefined)
    return (
      <p role="status" className="loading">
        Loading…
      </p>
    );
  if (isEmpty?.(resource.data)) return <div className="empty">{empty}</div>;
  return <>{children(resource.data)}</>;
}

export function PageTitle({ children, actions }: { children: ReactNode; actions?: ReactNode }) {
  return (
    <div className="page-title">
      <h1 tabIndex={-1}>{children}</h1>
      {actions}
    </div>
  );
}

export const formatDate = (iso: string | null | undefined) => (iso ? new Date(iso).toLocaleString('en-GB', { dateStyle: 'medium', timeStyle: 'short' }) : '—');
