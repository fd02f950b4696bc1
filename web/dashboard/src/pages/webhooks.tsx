import { useEffect, useId, useState } from 'react';
import { api, call, type Schemas } from '../api/client';
import { useResource } from '../api/use-resource';
import { ConfirmButton } from '../components/confirm-button';
import { ShownOnce } from '../components/shown-once';
import { formatDate, Loaded, PageTitle } from '../components/states';
import { Field, FormError } from '../forms/fields';
import { useSubmit } from '../forms/use-submit';
import { useTenant } from '../session/session-context';

type Webhook = Schemas['WebhookResponse'];
type Delivery = Schemas['DeliveryResponse'];
type EventType = Exclude<Schemas['CreateWebhookDto']['events'][number], '*'>;

/**
 * The subscribable events, in words. A Record over the API's own union: when the API gains or
 * drops an event type, `npm run dashboard:types` makes this list fail to compile until it follows.
 */
const EVENTS: Record<EventType, string> = {
  'lead.created': 'A lead is captured',
  'lead.updated': 'A lead changes',
  'lead.deleted': 'A lead is deleted',
  'conversation.started': 'A conversation starts',
  'conversation.ended': 'A conversation ends',
  'conversation.handed_off': 'A conversation is handed to a person',
  'conversation.released': 'A conversation goes back to the bot',
  'conversation.assigned': 'A conversation is assigned',
  'conversation.deleted': 'A conversation is deleted',
  'message.created': 'A message is sent (visitor, bot or agent)',
  'bot.updated': 'A bot changes',
  'webhook.test': 'A test event is sent',
};
const EVENT_TYPES = Object.keys(EVENTS) as EventType[];
const DISABLED_BECAUSE: Record<string, string> = {
  manual: 'switched off',
  gone: 'the receiver answered 410 Gone',
  failing: 'every delivery failed for 5 days',
};

/** A secret the API shows once (at creation or rotation), until the user says they have copied it. */
interface ShownSecret {
  url: string;
  secret: string;
  rotated: boolean;
}

export default function WebhooksPage() {
  const webhooks = useResource(() => call(api.GET('/api/v1/webhooks')), []);
  const [shown, setShown] = useState<ShownSecret>();
  const show = async (secret: ShownSecret) => {
    setShown(secret);
    await webhooks.reload();
  };
  return (
    <>
      <PageTitle>Webhooks</PageTitle>
      <p>
        Your systems hear of changes as they happen: each endpoint receives the events it subscribes to, signed with its secret (Standard Webhooks), and is
        retried until it answers 2xx.
      </p>
      <CreateWebhookForm onCreated={(url, secret) => show({ url, secret, rotated: false })} />
      {shown && <SecretShownOnce shown={shown} onDone={() => setShown(undefined)} />}
      <Loaded resource={webhooks} isEmpty={(data) => data.webhooks.length === 0} empty={<p>No endpoints yet.</p>}>
        {(data) => (
          <ul className="keys">
            {data.webhooks.map((webhook) => (
              <WebhookItem
                key={webhook.id}
                webhook={webhook}
                onChanged={webhooks.reload}
                onRotated={(secret) => show({ url: webhook.url, secret, rotated: true })}
              />
            ))}
          </ul>
        )}
      </Loaded>
    </>
  );
}

function CreateWebhookForm({ onCreated }: { onCreated: (url: string, secret: string) => Promise<void> }) {
  const [url, setUrl] = useState('');
  const [all, setAll] = useState(false);
  const [events, setEvents] = useState<EventType[]>(['lead.created']);
  const [description, setDescription] = useState('');
  const eventsError = useId();
  const planNote = useId();
  const { paidPlan } = useTenant();
  const { submit, busy, errors } = useSubmit(['url', 'events', 'description'], async () => {
    const answer = await call(api.POST('/api/v1/webhooks', { body: { url, events: all ? ['*'] : events, description: description || null } }));
    setUrl('');
    setDescription('');
    await onCreated(answer.webhook.url, answer.secret);
  });
  const toggle = (event: EventType) => setEvents((current) => (current.includes(event) ? current.filter((each) => each !== event) : [...current, event]));
  return (
    <form className="card" onSubmit={submit} noValidate aria-labelledby="new-webhook">
      <h2 id="new-webhook">New endpoint</h2>
      {!paidPlan && (
        <p className="hint" id={planNote}>
          Creating endpoints needs the Pro plan; the endpoints you have keep working.
        </p>
      )}
      <FormError errors={errors} />
      <Field
        label="Endpoint URL"
        name="url"
        type="url"
        inputMode="url"
        required
        hint="An https URL of your server that accepts POST requests."
        value={url}
        onChange={setUrl}
        errors={errors}
      />
      <fieldset aria-describedby={errors.fields.events ? eventsError : undefined} aria-invalid={errors.fields.events ? true : undefined}>
        <legend>Events</legend>
        <label className="scope">
          <input type="checkbox" checked={all} onChange={() => setAll(!all)} /> Every event, present and future
        </label>
        {!all &&
          EVENT_TYPES.map((event) => (
            <label key={event} className="scope">
              <input type="checkbox" checked={events.includes(event)} onChange={() => toggle(event)} /> <code>{event}</code>: {EVENTS[event]}
            </label>
          ))}
        {errors.fields.events && (
          <p className="field-error" id={eventsError}>
            Error: {errors.fields.events}
          </p>
        )}
      </fieldset>
      <Field label="Description (optional)" name="description" maxLength={500} value={description} onChange={setDescription} errors={errors} />
      <button type="submit" disabled={busy || !paidPlan} aria-describedby={paidPlan ? undefined : planNote}>
        Create endpoint
      </button>
    </form>
  );
}

/** The signing secret, shown this once; focus moves to it so that keyboard and screen-reader users find it. */
function SecretShownOnce({ shown, onDone }: { shown: ShownSecret; onDone: () => void }) {
  return (
    <ShownOnce
      title={`${shown.rotated ? 'New signing secret' : 'Signing secret'} of ${shown.url}`}
      headingId="secret-title"
      value={shown.secret}
      valueLabel="Signing secret"
      testId="webhook-secret"
      copyLabel="Copy secret"
      focus
      onDone={onDone}
    >
      <p>
        Copy it now into your receiver: it is shown this once and cannot be shown again.
        {shown.rotated && ' The previous secret keeps signing too for 24 hours, so you can switch without losing events.'}
      </p>
    </ShownOnce>
  );
}

function WebhookItem({ webhook, onChanged, onRotated }: { webhook: Webhook; onChanged: () => Promise<void>; onRotated: (secret: string) => Promise<void> }) {
  const [confirming, setConfirming] = useState(false);
  const [showDeliveries, setShowDeliveries] = useState(false);
  const [deliveriesVersion, setDeliveriesVersion] = useState(0);
  const [notice, setNotice] = useState<string>();
  const path = { params: { path: { id: webhook.id } } };
  const action = (work: () => Promise<void>) => async () => {
    setNotice(undefined);
    await work();
  };
  const test = useSubmit(
    [],
    action(async () => {
      await call(api.POST('/api/v1/webhooks/{id}/test', path));
      setNotice('Test event queued.');
      setShowDeliveries(true);
      setDeliveriesVersion((version) => version + 1);
    }),
  );
  const rotate = useSubmit(
    [],
    action(async () => {
      const answer = await call(api.POST('/api/v1/webhooks/{id}/rotate-secret', path));
      await onRotated(answer.secret);
    }),
  );
  const toggle = useSubmit(
    [],
    action(async () => {
      await call(api.PATCH('/api/v1/webhooks/{id}', { ...path, body: { enabled: !webhook.enabled } }));
      await onChanged();
    }),
  );
  const remove = useSubmit(
    [],
    action(async () => {
      await call(api.DELETE('/api/v1/webhooks/{id}', path));
      await onChanged();
    }),
  );
  const busy = test.busy || rotate.busy || toggle.busy || remove.busy;
  const events = webhook.events.includes('*') ? 'every event' : webhook.events.join(', ');
  return (
    <li className="card">
      <h2 className="key-name webhook-url">{webhook.url}</h2>
      {webhook.description && <p>{webhook.description}</p>}
      <p>
        {webhook.enabled ? 'Enabled' : `Disabled: ${DISABLED_BECAUSE[webhook.disabledReason ?? 'manual'] ?? webhook.disabledReason}`} · events: {events} ·
        created {formatDate(webhook.createdAt)}
      </p>
      {webhook.pausedUntil && <PausedNote until={webhook.pausedUntil} />}
      <div className="actions">
        <button type="button" className="secondary" disabled={busy} onClick={() => void test.submit()} aria-label={`Send test event to ${webhook.url}`}>
          Send test event
        </button>
        <button
          type="button"
          className="secondary"
          aria-expanded={showDeliveries}
          onClick={() => setShowDeliveries(!showDeliveries)}
          aria-label={`Deliveries to ${webhook.url}`}
        >
          Deliveries
        </button>
        <button type="button" className="secondary" disabled={busy} onClick={() => void rotate.submit()} aria-label={`Rotate secret of ${webhook.url}`}>
          Rotate secret
        </button>
        <button type="button" className="secondary" disabled={busy} onClick={() => void toggle.submit()}>
          {webhook.enabled ? 'Disable' : 'Enable'}
          <span className="visually-hidden"> {webhook.url}</span>
        </button>
        {confirming ? (
          <span role="group" aria-label={`Delete ${webhook.url}?`}>
            Delete this endpoint? Its pending deliveries are dropped.{' '}
            <ConfirmButton disabled={busy} onClick={() => void remove.submit()}>
              Yes, delete endpoint
            </ConfirmButton>{' '}
            <button type="button" className="secondary" onClick={() => setConfirming(false)}>
              Keep it
            </button>
          </span>
        ) : (
          <button type="button" className="secondary" onClick={() => setConfirming(true)} aria-label={`Delete ${webhook.url}`}>
            Delete
          </button>
        )}
      </div>
      {notice && (
        <p role="status" className="saved">
          {notice}
        </p>
      )}
      {[test, rotate, toggle, remove].map((each, index) => (
        <FormError key={index} errors={each.errors} />
      ))}
      {/* A new test event reads the list afresh (a new key mounts it anew). */}
      {showDeliveries && <Deliveries key={deliveriesVersion} webhook={webhook} />}
    </li>
  );
}

/** Why an endpoint is not tried for now, and when it will be (the API's pause after 5 attempts without an answer). */
function PausedNote({ until }: { until: string }) {
  return (
    <p className="paused" data-testid="webhook-paused">
      Paused until {formatDate(until)}: its last 5 attempts got no answer. Deliveries wait, keeping their retries, and resume then; disabling and enabling the
      endpoint resumes them now.
    </p>
  );
}

/** How often the list is read again while a delivery is pending, so its outcome shows without a click. */
const PENDING_REFRESH_MS = 1000;

function Deliveries({ webhook }: { webhook: Webhook }) {
  const deliveries = useResource(
    () => call(api.GET('/api/v1/webhooks/{id}/deliveries', { params: { path: { id: webhook.id }, query: { limit: 20 } } })),
    [webhook.id],
  );
  const { data, reload } = deliveries;
  useEffect(() => {
    // The clock is read here, not while rendering: each answer sets the next look.
    const dueSoon = data?.deliveries.some(
      (delivery) => delivery.status === 'pending' && delivery.nextAttemptAt && Date.parse(delivery.nextAttemptAt) < Date.now() + 60_000,
    );
    if (!dueSoon) return;
    const timer = setTimeout(() => void reload(), PENDING_REFRESH_MS);
    return () => clearTimeout(timer);
  }, [data, reload]);
  return (
    <section aria-label={`Deliveries to ${webhook.url}`}>
      <Loaded resource={deliveries} isEmpty={(data) => data.deliveries.length === 0} empty={<p>No deliveries yet. Send a test event to see one.</p>}>
        {(data) => (
          <table className="list">
            <caption>
              Deliveries to {webhook.url}, newest first ({data.pagination.total}){' '}
              <button type="button" className="secondary" onClick={() => void reload()}>
                Refresh
              </button>
            </caption>
            <thead>
              <tr>
                <th scope="col">Event</th>
                <th scope="col">Status</th>
                <th scope="col">Attempts</th>
                <th scope="col">Response</th>
                <th scope="col">Last attempt</th>
                <th scope="col">Next attempt</th>
                <th scope="col">
                  <span className="visually-hidden">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {data.deliveries.map((delivery) => (
                <DeliveryRow key={delivery.id} webhookId={webhook.id} delivery={delivery} onRetried={reload} />
              ))}
            </tbody>
          </table>
        )}
      </Loaded>
    </section>
  );
}

function DeliveryRow({ webhookId, delivery, onRetried }: { webhookId: string; delivery: Delivery; onRetried: () => Promise<void> }) {
  const retry = useSubmit([], async () => {
    await call(api.POST('/api/v1/webhooks/{id}/deliveries/{deliveryId}/retry', { params: { path: { id: webhookId, deliveryId: delivery.id } } }));
    await onRetried();
  });
  return (
    <tr data-testid="delivery">
      <th scope="row">{delivery.eventType}</th>
      <td data-testid="delivery-status">{delivery.status}</td>
      <td data-testid="delivery-attempts">{delivery.attempts}</td>
      <td data-testid="delivery-response">
        {delivery.lastResponseStatus ?? '—'}
        {delivery.lastError && <span className="hint"> {delivery.lastError}</span>}
      </td>
      <td>{formatDate(delivery.lastAttemptAt)}</td>
      <td>{formatDate(delivery.nextAttemptAt)}</td>
      <td>
        <button
          type="button"
          className="secondary"
          disabled={retry.busy}
          onClick={() => void retry.submit()}
          aria-label={`Retry ${delivery.eventType} of ${formatDate(delivery.createdAt)}`}
        >
          Retry
        </button>
        <FormError errors={retry.errors} />
      </td>
    </tr>
  );
}
