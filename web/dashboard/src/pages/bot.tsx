import { useParams } from 'react-router-dom';
import { api, call } from '../api/client';
import { useResource } from '../api/use-resource';
import { Loaded, PageTitle } from '../components/states';
import { BotSettingsForm } from './bot/bot-settings-form';
import { EmbedSnippet } from './bot/embed-snippet';
import { KnowledgeSection } from './bot/knowledge-section';
import { TryQuestion } from './bot/try-question';

/** One bot: its settings, its embed snippet, its knowledge, and a box to try it. */
export default function BotPage() {
  const { botId = '' } = useParams();
  const bot = useResource(() => call(api.GET('/api/v1/bots/{id}', { params: { path: { id: botId } } })), [botId]);
  return (
    <Loaded resource={bot}>
      {({ bot: current }) => (
        <>
          <PageTitle>{current.name}</PageTitle>
          <p>
            State: <strong>{current.isActive ? 'On' : 'Off'}</strong> · {current.knowledgeBaseSize} characters of knowledge · {current.messageCount} messages
          </p>
          <BotSettingsForm bot={current} onSaved={bot.reload} />
          <EmbedSnippet botId={current.id} />
          <KnowledgeSection botId={current.id} onChange={bot.reload} />
          <TryQuestion botId={current.id} active={current.isActive} />
        </>
      )}
    </Loaded>
  );
}
