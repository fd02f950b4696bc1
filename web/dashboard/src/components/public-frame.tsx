import type { ReactNode } from 'react';

/** The frame of the pages before a session: a narrow column with one heading. */
export function PublicFrame({ title, children }: { title: string; children: ReactNode }) {
  return (
    <main className="public" id="main">
      <p className="brand">Chatbot Platform</p>
      <h1>{title}</h1>
      {children}
    </main>
  );
}
