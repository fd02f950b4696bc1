import { Link } from 'react-router-dom';
import { api, call } from '../api/client';
import { useResource } from '../api/use-resource';
import { useTenant } from '../session/session-context';

/** The first steps, each ticked from the tenant's real data (not from clicks). */
export function FirstRunChecklist() {
  const { can } = useTenant();
  const managesKeys = can('tenant:manage');
  const state = useResource(async () => {
    const { bots } = await call(api.GET('/api/v1/bots'));
    // Agents and viewers cannot list keys: the step then stays open.
    const keys = managesKeys ? (await call(api.GET('/api/v1/api-keys'))).apiKeys : [];
    return {
      bot: bots.length > 0,
      knowledge: bots.some((bot) => bot.knowledgeBaseSize > 0),
      tried: bots.some((bot) => bot.messageCount > 0),
      embedded: keys.some((key) => key.type === 'public'),
      firstBot: bots[0]?.id,
    };
  }, [managesKeys]);
  const done = state.data;
  if (!done || (done.bot && done.knowledge && done.tried && done.embedded)) return null;
  const botLink = done.firstBot ? `/bots/${done.firstBot}` : '/bots';
  const steps: [boolean, string, string][] = [
    [done.bot, 'Create a bot', '/bots'],
    [done.knowledge, 'Add knowledge', botLink],
    [done.tried, 'Try it with a question', botLink],
    [done.embedded, 'Embed it on your site', botLink],
  ];
  return (
    <section className="card" aria-labelledby="checklist-title">
      <h2 id="checklist-title">Getting started</h2>
      <ol className="checklist">
        {steps.map(([ticked, label, to]) => (
          <li key={label} className={ticked ? 'done' : ''}>
            <span className="tick" aria-hidden="true">
              {ticked ? '✓' : '○'}
            </span>{' '}
            <Link to={to}>{label}</Link> <span className="state">{ticked ? '(done)' : '(to do)'}</span>
          </li>
        ))}
      </ol>
    </section>
  );
}
