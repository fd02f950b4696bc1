import { useState } from 'react';
import { Link, useParams } from 'react-router-dom';
import { api, call, type Schemas } from '../api/client';
import { useResource } from '../api/use-resource';
import { formatDate, Loaded, PageTitle } from '../components/states';

type Status = Schemas['ConversationStatus'];
const STATUSES: Status[] = ['active', 'ended', 'handed_off'] as Status[];

/** The list with filters; with an id, the transcript beside it. */
export default function ConversationsPage() {
  const { conversationId } = useParams();
  const [status, setStatus] = useState<Status | ''>('');
  const list = useResource(() => call(api.GET('/api/v1/conversations', { params: { query: { limit: 50, status: status || undefined } } })), [status]);
  return (
    <>
      <PageTitle>Conversations</PageTitle>
      <div className="card filters">
        <label htmlFor="conversation-status">Status</label>{' '}
        <select id="conversation-status" value={status} onChange={(event) => setStatus(event.target.value as Status | '')}>
          <option value="">Any</option>
          {STATUSES.map((each) => (
            <option key={each} value={each}>
              {each.replace('_', ' ')}
            </option>
          ))}
        </select>
      </div>
      <div className="split">
        <Loaded resource={list} isEmpty={(data) => data.conversations.length === 0} empty={<p>No conversations yet.</p>}>
          {({ conversations }) => (
            <ul className="conversations">
              {conversations.map((each) => (
                <li key={each.id}>
                  <Link to={`/conversations/${each.id}`} aria-current={each.id === conversationId ? 'page' : undefined}>
                    {formatDate(each.createdAt)} · {each.status.replace('_', ' ')} · {each.messageCount} messages
                  </Link>
                </li>
              ))}
            </ul>
          )}
        </Loaded>
        {conversationId && <Transcript id={conversationId} />}
      </div>
    </>
  );
}

function Transcript({ id }: { id: string }) {
  const messages = useResource(() => call(api.GET('/api/v1/conversations/{id}/messages', { params: { path: { id }, query: { limit: 100 } } })), [id]);
  return (
    <section className="card" aria-labelledby="transcript-title">
      <h2 id="transcript-title">Transcript</h2>
      <Loaded resource={messages} isEmpty={(data) => data.messages.length === 0} empty={<p>No messages.</p>}>
        {(data) => (
          <ol className="transcript">
            {data.messages.map((message) => (
              <li key={message.id} className={`message ${message.role}`}>
                <strong>{message.role === 'user' ? 'Visitor' : message.role === 'assistant' ? 'Bot' : 'Agent'}:</strong> {message.content}
              </li>
            ))}
          </ol>
        )}
      </Loaded>
    </section>
  );
}
