import { type KeyboardEvent, useCallback, useEffect, useEffectEvent, useId, useRef, useState } from 'react';
import { Link, useParams } from 'react-router-dom';
import { api, ApiError, call, type Schemas } from '../api/client';
import { type Conversation, followConversation, type Message, type StreamState } from '../api/conversation-events';
import { useResource } from '../api/use-resource';
import { formatDate, Loaded, PageTitle } from '../components/states';
import { Field, FormError } from '../forms/fields';
import { type FormErrors, NO_ERRORS, toFormErrors } from '../forms/form-errors';
import { useSubmit } from '../forms/use-submit';
import { useSession, useTenant } from '../session/session-context';
import { VisitorDetails, VisitorLabel } from './inbox/visitor';

type Status = Schemas['ConversationStatus'];
const FILTERS: [Status | '', string][] = [
  ['handed_off', 'Waiting for a person'],
  ['active', 'With the bot'],
  ['ended', 'Ended'],
  ['', 'Any'],
];

/** How often the list is read again while the page is in view, so new waits show without a click. */
const LIST_REFRESH_MS = 10_000;

/** Messages the transcript shows at most: the latest ones. */
const TRANSCRIPT_LIMIT = 100;

const time = (iso: string) => new Date(iso).toLocaleTimeString('en-GB', { hour: '2-digit', minute: '2-digit' });

/**
 * The inbox: conversations a person should answer, the ones a visitor waits in first (longest wait
 * first); with an id, the conversation beside them, its transcript updating live, a reply box and
 * the handoff's actions (assign to me, release to the bot, end).
 */
export default function InboxPage() {
  const { conversationId } = useParams();
  const { account } = useSession();
  const [status, setStatus] = useState<Status | ''>('handed_off');
  const list = useResource(
    () => call(api.GET('/api/v1/conversations', { params: { query: { limit: 50, sort: 'waiting', status: status || undefined } } })),
    [status],
  );
  const reloadList = list.reload;
  // A visitor who asks for a person in another conversation has no stream open here: the list is
  // polled (the open conversation's own changes come through its stream at once).
  useEffect(() => {
    const timer = setInterval(() => document.visibilityState === 'visible' && void reloadList(), LIST_REFRESH_MS);
    return () => clearInterval(timer);
  }, [reloadList]);
  return (
    <>
      <PageTitle actions={<RefreshButton onClick={() => void reloadList()} />}>Inbox</PageTitle>
      <div className="card filters">
        <div className="field">
          <label htmlFor="inbox-status">Show</label>
          <select id="inbox-status" value={status} onChange={(event) => setStatus(event.target.value as Status | '')}>
            {FILTERS.map(([value, label]) => (
              <option key={value} value={value}>
                {label}
              </option>
            ))}
          </select>
        </div>
      </div>
      <div className="split">
        <section aria-labelledby="inbox-list-title">
          <h2 id="inbox-list-title" className="visually-hidden">
            Conversations
          </h2>
          <Loaded resource={list} isEmpty={(data) => data.conversations.length === 0} empty={<p>Nobody is waiting. Nothing to answer.</p>}>
            {({ conversations }) => (
              <ul className="conversations inbox-list">
                {conversations.map((each) => (
                  <li key={each.id}>
                    <Link to={`/inbox/${each.id}`} aria-current={each.id === conversationId ? 'page' : undefined}>
                      <VisitorLabel visitor={each.visitor} after=" · " />
                      {summary(each, account?.user.id)}
                    </Link>
                  </li>
                ))}
              </ul>
            )}
          </Loaded>
        </section>
        {conversationId ? (
          <ConversationPanel key={conversationId} id={conversationId} onChanged={reloadList} />
        ) : (
          <p className="card">Choose a conversation to read and answer it.</p>
        )}
      </div>
    </>
  );
}

function RefreshButton({ onClick }: { onClick: () => void }) {
  return (
    <button type="button" className="secondary" onClick={onClick}>
      Refresh the list
    </button>
  );
}

/** One line of the list: who waits since when, and who holds it. */
function summary(conversation: Conversation, me: string | undefined): string {
  const state =
    conversation.status === 'handed_off'
      ? conversation.waitingSince
        ? `Waiting since ${formatDate(conversation.waitingSince)}`
        : `With a person since ${formatDate(conversation.handedOffAt)}`
      : conversation.status === 'active'
        ? `With the bot, started ${formatDate(conversation.createdAt)}`
        : `Ended ${formatDate(conversation.endedAt)}`;
  const holder = conversation.assigneeId ? (conversation.assigneeId === me ? 'assigned to you' : 'assigned to another member') : 'unassigned';
  return `${state} · ${holder} · ${conversation.messageCount} messages`;
}

/** Adds messages in order, each once (the stream and the first load may both bring one). */
function merge(current: Message[], added: Message[]): Message[] {
  const byId = new Map(current.map((message) => [message.id, message]));
  for (const message of added) byId.set(message.id, message);
  return [...byId.values()].sort((a, b) => a.createdAt.localeCompare(b.createdAt) || a.id.localeCompare(b.id)).slice(-TRANSCRIPT_LIMIT);
}

function ConversationPanel({ id, onChanged }: { id: string; onChanged: () => Promise<void> }) {
  const { account, membership } = useSession();
  const me = account?.user.id;
  const canAnswer = useTenant().can('conversations:write');
  const [conversation, setConversation] = useState<Conversation>();
  const [messages, setMessages] = useState<Message[]>([]);
  const [loadError, setLoadError] = useState<string>();
  const [stream, setStream] = useState<{ state: StreamState; problem?: string }>({ state: 'connecting' });
  // The list's latest reload, without following the stream again when the parent renders anew.
  const announceChange = useEffectEvent(() => void onChanged());

  // The transcript's latest page first, then the live stream adds to it.
  useEffect(() => {
    let current = true;
    void (async () => {
      try {
        const [found, first] = await Promise.all([
          call(api.GET('/api/v1/conversations/{id}', { params: { path: { id } } })),
          call(api.GET('/api/v1/conversations/{id}/messages', { params: { path: { id }, query: { limit: TRANSCRIPT_LIMIT } } })),
        ]);
        const total = first.pagination.total;
        const latest =
          total > TRANSCRIPT_LIMIT
            ? await call(
                api.GET('/api/v1/conversations/{id}/messages', {
                  params: { path: { id }, query: { limit: TRANSCRIPT_LIMIT, offset: total - TRANSCRIPT_LIMIT } },
                }),
              )
            : first;
        if (!current) return;
        setConversation((live) => live ?? found.conversation);
        setMessages((live) => merge(live, latest.messages));
      } catch (error) {
        if (current) setLoadError(error instanceof ApiError ? error.message : 'The conversation could not be loaded.');
      }
    })();
    return () => {
      current = false;
    };
  }, [id]);

  useEffect(() => {
    if (!membership) return;
    return followConversation(id, membership.tenant.id, {
      message: (message) => setMessages((current) => merge(current, [message])),
      conversation: (next) => {
        setConversation(next);
        announceChange();
      },
      state: (state, problem) => setStream({ state, problem }),
    });
  }, [id, membership]);

  if (loadError)
    return (
      <p className="form-error" role="alert">
        Error: {loadError}
      </p>
    );
  if (!conversation)
    return (
      <p role="status" className="loading">
        Loading…
      </p>
    );
  return (
    <section className="card inbox-panel" aria-labelledby="inbox-conversation-title">
      <h2 id="inbox-conversation-title">Conversation</h2>
      <p className="inbox-meta">
        <span>Status: {conversation.status === 'handed_off' ? 'with a person' : conversation.status === 'active' ? 'with the bot' : 'ended'}</span>
        {conversation.waitingSince && <span>Waiting since {formatDate(conversation.waitingSince)}</span>}
        <span>{conversation.assigneeId ? (conversation.assigneeId === me ? 'Assigned to you' : 'Assigned to another member') : 'Nobody is assigned'}</span>
        <span role="status" className={`live-state ${stream.state}`}>
          {stream.state === 'live'
            ? 'Live'
            : stream.state === 'closed'
              ? (stream.problem ?? 'Not live')
              : stream.state === 'reconnecting'
                ? 'Reconnecting…'
                : 'Connecting…'}
        </span>
      </p>
      <VisitorDetails visitor={conversation.visitor} conversationId={conversation.id} />
      {canAnswer && <Actions conversation={conversation} me={me} onDone={setConversation} />}
      <h3 id="inbox-transcript-title">Transcript</h3>
      {messages.length === 0 ? (
        <p>No messages yet.</p>
      ) : (
        <ol className="transcript" aria-labelledby="inbox-transcript-title" aria-live="polite" aria-relevant="additions">
          {messages.map((message) => (
            <li key={message.id} className={`message ${message.role}`}>
              <strong>
                {message.role === 'user' ? 'Visitor' : message.role === 'assistant' ? 'Bot' : `Agent${message.authorName ? ` (${message.authorName})` : ''}`}
              </strong>{' '}
              <span className="hint">{time(message.createdAt)}</span>
              <p>{message.content}</p>
            </li>
          ))}
        </ol>
      )}
      {canAnswer && conversation.status !== 'ended' && (
        <ReplyForm conversationId={conversation.id} onSent={(message) => setMessages((current) => merge(current, [message]))} />
      )}
      {conversation.status === 'ended' && <p>This conversation has ended.</p>}
    </section>
  );
}

/** Assign to me, release to the bot, end: each answer replaces the conversation; an error shows beside the buttons. */
function Actions({ conversation, me, onDone }: { conversation: Conversation; me: string | undefined; onDone: (next: Conversation) => void }) {
  const [busy, setBusy] = useState(false);
  const [errors, setErrors] = useState<FormErrors>(NO_ERRORS);
  const [heldByOther, setHeldByOther] = useState(false);
  const id = conversation.id;
  const run = async (action: () => Promise<{ conversation: Conversation }>) => {
    setBusy(true);
    setErrors(NO_ERRORS);
    setHeldByOther(false);
    try {
      onDone((await action()).conversation);
    } catch (error) {
      setErrors(toFormErrors(error, []));
      setHeldByOther(error instanceof ApiError && error.code === 'ALREADY_ASSIGNED');
    } finally {
      setBusy(false);
    }
  };
  const assign = (force: boolean) =>
    run(() => call(api.PUT('/api/v1/conversations/{id}/assignee', { params: { path: { id } }, body: { userId: me ?? null, force } })));
  if (conversation.status === 'ended') return null;
  return (
    <div className="inbox-actions" role="group" aria-label="Conversation actions">
      <div className="inbox-buttons">
        {conversation.assigneeId !== me && (
          <button type="button" disabled={busy} onClick={() => void assign(false)}>
            Assign to me
          </button>
        )}
        {conversation.status === 'handed_off' && (
          <button
            type="button"
            className="secondary"
            disabled={busy}
            onClick={() => void run(() => call(api.POST('/api/v1/conversations/{id}/release', { params: { path: { id } } })))}
          >
            Release to the bot
          </button>
        )}
        <button
          type="button"
          className="danger"
          disabled={busy}
          onClick={() => void run(() => call(api.POST('/api/v1/conversations/{id}/end', { params: { path: { id } } })))}
        >
          End conversation
        </button>
      </div>
      <FormError errors={errors} />
      {heldByOther && (
        <button type="button" className="secondary" disabled={busy} onClick={() => void assign(true)}>
          Take it over anyway
        </button>
      )}
    </div>
  );
}

/** The agent's reply; one Idempotency-Key per message, kept across retries, so a retried send stores it once. */
function ReplyForm({ conversationId, onSent }: { conversationId: string; onSent: (message: Message) => void }) {
  const [content, setContent] = useState('');
  const idempotencyKey = useRef<string>(crypto.randomUUID());
  const hint = useId();
  const { submit, busy, errors } = useSubmit(['content', 'authorName'], async () => {
    const { message } = await call(
      api.POST('/api/v1/conversations/{id}/messages', {
        params: { path: { id: conversationId }, header: { 'Idempotency-Key': idempotencyKey.current } },
        body: { content },
      }),
    );
    idempotencyKey.current = crypto.randomUUID();
    setContent('');
    onSent(message);
  });
  const sendWithKeys = useCallback(
    (event: KeyboardEvent<HTMLFormElement>) => {
      // Ctrl+Enter (or Cmd+Enter) sends, as in most helpdesks; Enter alone makes a new line.
      if (event.key !== 'Enter' || !(event.ctrlKey || event.metaKey) || busy) return;
      event.preventDefault();
      void submit();
    },
    [busy, submit],
  );
  return (
    <form className="reply" onSubmit={(event) => void submit(event)} onKeyDown={sendWithKeys} noValidate aria-describedby={hint}>
      <FormError errors={errors} />
      <Field label="Reply to the visitor" name="content" value={content} onChange={setContent} errors={errors} multiline required maxLength={4000} />
      <p className="hint" id={hint}>
        The visitor sees it at once, signed with your name. Ctrl+Enter sends.
      </p>
      <button type="submit" disabled={busy}>
        {busy ? 'Sending…' : 'Send reply'}
      </button>
    </form>
  );
}
