import { useEffect, useState } from 'react';
import { api, call, type Schemas } from '../../api/client';
import { Field, FormError } from '../../forms/fields';
import { useSubmit } from '../../forms/use-submit';

type Bot = Schemas['BotResponse'];

/** The bot's own fields (PATCH /bots/:id) and its widget settings (PATCH /bots/:id/settings), saved together. */
export function BotSettingsForm({ bot, onSaved }: { bot: Bot; onSaved: () => Promise<void> }) {
  const [form, setForm] = useState({
    name: bot.name,
    primaryColor: bot.primaryColor,
    language: bot.language,
    isActive: bot.isActive,
    welcomeMessage: '',
    fallbackMessage: '',
    showSources: true,
  });
  const [loaded, setLoaded] = useState(false);
  const [saved, setSaved] = useState(false);
  useEffect(() => {
    void call(api.GET('/api/v1/bots/{id}/settings', { params: { path: { id: bot.id } } })).then(({ settings }) => {
      setForm((current) => ({
        ...current,
        welcomeMessage: settings.welcomeMessage ?? '',
        fallbackMessage: settings.fallbackMessage,
        showSources: settings.showSources,
      }));
      setLoaded(true);
    });
  }, [bot.id]);
  const set =
    <K extends keyof typeof form>(field: K) =>
    (value: (typeof form)[K]) => {
      setSaved(false);
      setForm((current) => ({ ...current, [field]: value }));
    };
  const { submit, busy, errors } = useSubmit(['name', 'primaryColor', 'language', 'welcomeMessage', 'fallbackMessage'], async () => {
    await call(
      api.PATCH('/api/v1/bots/{id}', {
        params: { path: { id: bot.id } },
        body: { name: form.name, primaryColor: form.primaryColor, language: form.language, isActive: form.isActive },
      }),
    );
    await call(
      api.PATCH('/api/v1/bots/{id}/settings', {
        params: { path: { id: bot.id } },
        body: { welcomeMessage: form.welcomeMessage || null, fallbackMessage: form.fallbackMessage, showSources: form.showSources },
      }),
    );
    setSaved(true);
    await onSaved();
  });
  return (
    <form className="card" onSubmit={submit} noValidate aria-labelledby="settings-title">
      <h2 id="settings-title">Settings</h2>
      <FormError errors={errors} />
      <Field label="Name" name="name" required maxLength={100} value={form.name} onChange={set('name')} errors={errors} />
      <Field label="Colour (hex, e.g. #2563eb)" name="primaryColor" value={form.primaryColor} onChange={set('primaryColor')} errors={errors} />
      <Field label="Language (two letters)" name="language" maxLength={2} value={form.language} onChange={set('language')} errors={errors} />
      <Field
        label="Welcome message"
        name="welcomeMessage"
        maxLength={500}
        value={form.welcomeMessage}
        onChange={set('welcomeMessage')}
        errors={errors}
        disabled={!loaded}
      />
      <Field
        label="Fallback message (when nothing in the knowledge fits)"
        name="fallbackMessage"
        maxLength={500}
        value={form.fallbackMessage}
        onChange={set('fallbackMessage')}
        errors={errors}
        disabled={!loaded}
      />
      <div className="check">
        <input id="bot-active" type="checkbox" checked={form.isActive} onChange={(event) => set('isActive')(event.target.checked)} />
        <label htmlFor="bot-active">Bot is on (the widget shows on your site)</label>
      </div>
      <div className="check">
        <input id="bot-sources" type="checkbox" checked={form.showSources} onChange={(event) => set('showSources')(event.target.checked)} />
        <label htmlFor="bot-sources">Show the sources of each answer</label>
      </div>
      <button type="submit" disabled={busy || !loaded}>
        {busy ? 'Saving…' : 'Save settings'}
      </button>
      {saved && (
        <p role="status" className="saved">
          Saved.
        </p>
      )}
    </form>
  );
}
