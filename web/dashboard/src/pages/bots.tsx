import { useState } from 'react';
import { Link, useNavigate } from 'react-router-dom';
import { api, call, type Schemas } from '../api/client';
import { useResource } from '../api/use-resource';
import { Loaded, PageTitle } from '../components/states';
import { Field, FormError } from '../forms/fields';
import { useSubmit } from '../forms/use-submit';
import { useTenant } from '../session/session-context';

export default function BotsPage() {
  const bots = useResource(() => call(api.GET('/api/v1/bots')), []);
  // Creating a bot and switching one on or off are an owner's or admin's (the server says so in `capabilities`).
  const manages = useTenant().can('tenant:manage');
  return (
    <>
      <PageTitle>Bots</PageTitle>
      {manages ? <CreateBotForm /> : <p className="hint">Your role does not create or switch bots: an owner or admin of this tenant does.</p>}
      <Loaded
        resource={bots}
        isEmpty={(data) => data.bots.length === 0}
        empty={<p>{manages ? 'No bots yet: create your first one above.' : 'No bots yet.'}</p>}
      >
        {({ bots: list }) => (
          <table className="list">
            <caption>Your bots</caption>
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">State</th>
                <th scope="col">Knowledge</th>
                <th scope="col">Messages</th>
                {manages && <th scope="col">Switch</th>}
              </tr>
            </thead>
            <tbody>
              {list.map((bot) => (
                <BotRow key={bot.id} bot={bot} onChange={bots.reload} switchable={manages} />
              ))}
            </tbody>
          </table>
        )}
      </Loaded>
    </>
  );
}

function BotRow({ bot, onChange, switchable }: { bot: Schemas['BotResponse']; onChange: () => Promise<void>; switchable: boolean }) {
  const { submit, busy, errors } = useSubmit([], async () => {
    await call(api.PATCH('/api/v1/bots/{id}', { params: { path: { id: bot.id } }, body: { isActive: !bot.isActive } }));
    await onChange();
  });
  return (
    <tr>
      <th scope="row">
        <Link to={`/bots/${bot.id}`}>{bot.name}</Link>
      </th>
      <td>{bot.isActive ? 'On' : 'Off'}</td>
      <td>{bot.knowledgeBaseSize} characters</td>
      <td>{bot.messageCount}</td>
      {switchable && (
        <td>
          <button
            type="button"
            className="secondary"
            disabled={busy}
            onClick={() => void submit()}
            aria-label={`${bot.isActive ? 'Switch off' : 'Switch on'} ${bot.name}`}
          >
            {bot.isActive ? 'Switch off' : 'Switch on'}
          </button>
          <FormError errors={errors} />
        </td>
      )}
    </tr>
  );
}

function CreateBotForm() {
  const navigate = useNavigate();
  const [name, setName] = useState('');
  const [language, setLanguage] = useState('en');
  const { submit, busy, errors } = useSubmit(['name', 'language'], async () => {
    const { bot } = await call(api.POST('/api/v1/bots', { body: { name, language } }));
    void navigate(`/bots/${bot.id}`);
  });
  return (
    <form className="card inline" onSubmit={submit} noValidate aria-labelledby="new-bot">
      <h2 id="new-bot">New bot</h2>
      <FormError errors={errors} />
      <Field label="Bot name" name="name" required maxLength={100} value={name} onChange={setName} errors={errors} />
      <Field label="Language (two letters)" name="language" required maxLength={2} value={language} onChange={setLanguage} errors={errors} />
      <button type="submit" disabled={busy}>
        Create bot
      </button>
    </form>
  );
}
