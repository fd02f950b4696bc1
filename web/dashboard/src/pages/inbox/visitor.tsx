import { Link } from 'react-router-dom';
import { api, call, type Schemas } from '../../api/client';
import { useResource } from '../../api/use-resource';
import { formatDate, Loaded } from '../../components/states';

type Visitor = Schemas['ConversationVisitor'];

/** How many of a person's other conversations the panel lists: the newest ones. */
const OTHER_CONVERSATIONS = 20;

/** The visitor's name and e-mail as one line ("Ada Lovelace, ada@example.com"); empty for an anonymous visitor. */
export function visitorName(visitor: Visitor | null): string {
  return [visitor?.name, visitor?.email].filter(Boolean).join(', ');
}

/** "Verified" in words (not a colour alone), and who: for a visitor the tenant vouched for, or one whose name or e-mail is known. */
export function VisitorLabel({ visitor, after = '' }: { visitor: Visitor | null; after?: string }) {
  const name = visitorName(visitor);
  if (!visitor?.verified && !name) return null;
  return (
    <span className="visitor">
      {visitor?.verified && <span className="badge verified">Verified</span>}
      {visitor?.verified && name && ' '}
      {name && <span className="visitor-name">{name}</span>}
      {after}
    </span>
  );
}

/** The visitor in the conversation's panel; for a verified visitor, their other conversations (newest first). */
export function VisitorDetails({ visitor, conversationId }: { visitor: Visitor | null; conversationId: string }) {
  if (!visitor?.verified && !visitorName(visitor)) return null;
  return (
    <div className="visitor-details">
      <p>
        <VisitorLabel visitor={visitor} />
        {visitor?.externalId && <span className="hint"> · your user id {visitor.externalId}</span>}
      </p>
      {visitor?.verified && visitor.externalId && <OtherConversations externalId={visitor.externalId} current={conversationId} />}
    </div>
  );
}

function OtherConversations({ externalId, current }: { externalId: string; current: string }) {
  const list = useResource(
    () => call(api.GET('/api/v1/conversations', { params: { query: { externalId, limit: OTHER_CONVERSATIONS + 1, sort: 'newest' } } })),
    [externalId],
  );
  return (
    <section aria-labelledby="other-conversations-title">
      <h3 id="other-conversations-title">Other conversations of this person</h3>
      <Loaded
        resource={list}
        isEmpty={(data) => data.conversations.every((each) => each.id === current)}
        empty={<p>None: this is their first conversation.</p>}
      >
        {({ conversations }) => (
          <ul className="conversations other-conversations">
            {conversations
              .filter((each) => each.id !== current)
              .slice(0, OTHER_CONVERSATIONS)
              .map((each) => (
                <li key={each.id}>
                  <Link to={`/inbox/${each.id}`}>
                    {formatDate(each.createdAt)} · {each.status === 'handed_off' ? 'with a person' : each.status === 'active' ? 'with the bot' : 'ended'} ·{' '}
                    {each.messageCount} messages
                  </Link>
                </li>
              ))}
          </ul>
        )}
      </Loaded>
    </section>
  );
}
