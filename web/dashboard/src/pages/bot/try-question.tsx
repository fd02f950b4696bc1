import { useRef, useState } from 'react';
import { api, call, type Schemas } from '../../api/client';
import { publicKeyFor } from '../../api/public-key';
import { Field, FormError } from '../../forms/fields';
import { useSubmit } from '../../forms/use-submit';
import { useTenant } from '../../session/session-context';

/** Asks the bot as a visitor would (the widget API with the tenant's public key) and shows the answer with its sources. */
export function TryQuestion({ botId, active }: { botId: string; active: boolean }) {
  const { tenantId } = useTenant();
  const [question, setQuestion] = useState('');
  const [reply, setReply] = useState<Schemas['WidgetReply']>();
  const conversation = useRef<{ id: string; token: string; key: string }>(undefined);
  const { submit, busy, errors } = useSubmit(['content'], async () => {
    if (!conversation.current) {
      const key = await publicKeyFor(tenantId);
      const session = await call(api.POST('/api/v1/widget/sessions', { headers: { 'X-API-Key': key }, body: { botId } }));
      const started = await call(
        api.POST('/api/v1/widget/conversations', { headers: { 'X-API-Key': key }, params: { header: { 'X-Visitor-Token': session.visitorToken } }, body: {} }),
      );
      conversation.current = { id: started.conversation.id, token: session.visitorToken, key };
    }
    const { id, token, key } = conversation.current;
    const exchange = await call(
      api.POST('/api/v1/widget/conversations/{id}/messages', {
        headers: { 'X-API-Key': key },
        params: { path: { id }, header: { 'X-Visitor-Token': token } },
        body: { content: question },
      }),
    );
    // null while a person holds the try-out conversation (a bot that hands off on its fallback): nothing to show.
    setReply(exchange.reply ?? undefined);
  });
  return (
    <section className="card" aria-labelledby="try-title">
      <h2 id="try-title">Try a question</h2>
      {!active && <p>The bot is off: switch it on to try it.</p>}
      <form onSubmit={submit} noValidate>
        <FormError errors={errors} />
        <Field label="Question" name="content" required maxLength={4000} value={question} onChange={setQuestion} errors={errors} />
        <button type="submit" disabled={busy || !active}>
          {busy ? 'Asking…' : 'Ask'}
        </button>
      </form>
      <div aria-live="polite">
        {reply && (
          <div className="answer">
            <h3>Answer</h3>
            <p data-testid="answer">{reply.content}</p>
            {reply.sources.length > 0 && <p data-testid="sources">Sources: {reply.sources.map((source) => source.title).join(', ')}</p>}
          </div>
        )}
      </div>
    </section>
  );
}
