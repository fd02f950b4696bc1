import { useState } from 'react';
import { api, call, type Schemas } from '../../api/client';
import { useResource } from '../../api/use-resource';
import { Loaded } from '../../components/states';
import { Field, FormError } from '../../forms/fields';
import { useSubmit } from '../../forms/use-submit';

type Summary = Schemas['KnowledgeDocumentSummaryResponse'];

/** The bot's knowledge documents: list, add (typed or from a .txt/.md file), edit, delete. */
export function KnowledgeSection({ botId, onChange }: { botId: string; onChange: () => Promise<void> }) {
  const documents = useResource(() => call(api.GET('/api/v1/bots/{id}/documents', { params: { path: { id: botId }, query: { limit: 100 } } })), [botId]);
  const [editing, setEditing] = useState<string | 'new' | null>(null);
  const changed = async () => {
    setEditing(null);
    await Promise.all([documents.reload(), onChange()]);
  };
  return (
    <section className="card" aria-labelledby="knowledge-title">
      <h2 id="knowledge-title">Knowledge</h2>
      <Loaded
        resource={documents}
        isEmpty={(data) => data.documents.length === 0 && editing !== 'new'}
        empty={
          <>
            <p>No documents yet. The bot answers from what you add here.</p>
            <button type="button" onClick={() => setEditing('new')}>
              Add a document
            </button>
          </>
        }
      >
        {({ documents: list }) => (
          <>
            {list.length > 0 && (
              <ul className="documents">
                {list.map((doc) => (
                  <li key={doc.id}>
                    {editing === doc.id ? (
                      <DocumentForm botId={botId} document={doc} onDone={changed} onCancel={() => setEditing(null)} />
                    ) : (
                      <DocumentRow botId={botId} document={doc} onEdit={() => setEditing(doc.id)} onDeleted={changed} />
                    )}
                  </li>
                ))}
              </ul>
            )}
            {editing === 'new' ? (
              <DocumentForm botId={botId} onDone={changed} onCancel={() => setEditing(null)} />
            ) : (
              <button type="button" onClick={() => setEditing('new')}>
                Add a document
              </button>
            )}
          </>
        )}
      </Loaded>
    </section>
  );
}

function DocumentRow({ botId, document, onEdit, onDeleted }: { botId: string; document: Summary; onEdit: () => void; onDeleted: () => Promise<void> }) {
  const [confirming, setConfirming] = useState(false);
  const { submit, busy, errors } = useSubmit([], async () => {
    await call(api.DELETE('/api/v1/bots/{id}/documents/{docId}', { params: { path: { id: botId, docId: document.id } } }));
    await onDeleted();
  });
  return (
    <div className="row">
      <span>
        <strong>{document.title}</strong> ({document.characters} characters)
      </span>
      <button type="button" className="secondary" onClick={onEdit} aria-label={`Edit ${document.title}`}>
        Edit
      </button>
      {confirming ? (
        <span role="group" aria-label={`Delete ${document.title}?`}>
          Delete for good?{' '}
          <button type="button" className="danger" disabled={busy} onClick={() => void submit()}>
            Yes, delete
          </button>{' '}
          <button type="button" className="secondary" onClick={() => setConfirming(false)}>
            Keep it
          </button>
        </span>
      ) : (
        <button type="button" className="secondary" onClick={() => setConfirming(true)} aria-label={`Delete ${document.title}`}>
          Delete
        </button>
      )}
      <FormError errors={errors} />
    </div>
  );
}

function DocumentForm({ botId, document, onDone, onCancel }: { botId: string; document?: Summary; onDone: () => Promise<void>; onCancel: () => void }) {
  const [title, setTitle] = useState(document?.title ?? '');
  const [content, setContent] = useState('');
  const [loaded, setLoaded] = useState(!document);
  if (document && !loaded) {
    void call(api.GET('/api/v1/bots/{id}/documents/{docId}', { params: { path: { id: botId, docId: document.id } } })).then(({ document: full }) => {
      setContent(full.content);
      setLoaded(true);
    });
  }
  const { submit, busy, errors } = useSubmit(['title', 'content'], async () => {
    if (document)
      await call(api.PATCH('/api/v1/bots/{id}/documents/{docId}', { params: { path: { id: botId, docId: document.id } }, body: { title, content } }));
    else await call(api.POST('/api/v1/bots/{id}/documents', { params: { path: { id: botId } }, body: { title, content } }));
    await onDone();
  });
  const readFile = async (file: File | undefined) => {
    if (!file) return;
    setContent(await file.text());
    if (!title) setTitle(file.name.replace(/\.(txt|md)$/i, ''));
  };
  return (
    <form onSubmit={submit} noValidate aria-label={document ? `Edit ${document.title}` : 'New document'} className="document-form">
      <FormError errors={errors} />
      <Field label="Title" name="title" required maxLength={200} value={title} onChange={setTitle} errors={errors} />
      <div className="field">
        <label htmlFor={`file-${document?.id ?? 'new'}`}>Or load the text from a file (.txt or .md)</label>
        <input
          id={`file-${document?.id ?? 'new'}`}
          type="file"
          accept=".txt,.md,text/plain,text/markdown"
          onChange={(event) => void readFile(event.target.files?.[0])}
        />
      </div>
      <Field label="Content" name="content" multiline required maxLength={200000} value={content} onChange={setContent} errors={errors} disabled={!loaded} />
      <button type="submit" disabled={busy || !loaded}>
        {busy ? 'Saving…' : document ? 'Save document' : 'Add document'}
      </button>{' '}
      <button type="button" className="secondary" onClick={onCancel}>
        Cancel
      </button>
    </form>
  );
}
