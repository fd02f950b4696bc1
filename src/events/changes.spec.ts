import type { PrismaService, PrismaTransaction } from '../database/prisma.service';
import { Changes } from './changes';
import type { LiveEvent } from './event-catalogue';

type MessageResponse = Extract<LiveEvent, { kind: 'message' }>['message'];
type ConversationResponse = Extract<LiveEvent, { kind: 'conversation' }>['conversation'];
import type { EventRecorder, PublishedEvent } from './event-recorder';
import type { LiveFeed } from './live-feed';

const conversation = { id: 'c1', status: 'ended' } as unknown as ConversationResponse;
const message = { id: 'm1', conversationId: 'c1', role: 'agent', content: 'Hello' } as unknown as MessageResponse;

/** Changes over a recorder and a feed that only remember what they were given, and a transaction that only runs its work. */
function changesWithWitnesses() {
  const queued: PublishedEvent[] = [];
  const announced: { conversationId: string; events: LiveEvent[]; outboxSizeThen: number }[] = [];
  const recorder = {
    publishAll: (_tx: unknown, _tenantId: string, events: PublishedEvent[]) => Promise.resolve(void queued.push(...events)),
    publishAlong: (_db: unknown, _tenantId: string, _change: unknown, events: PublishedEvent[]) => {
      queued.push(...events);
      return Promise.resolve([{ id: 'row' }]);
    },
    record: () => Promise.resolve(),
  } as unknown as EventRecorder;
  const feed = {
    publish: (conversationId: string, events: LiveEvent[]) => Promise.resolve(void announced.push({ conversationId, events, outboxSizeThen: queued.length })),
  } as unknown as LiveFeed;
  const tx = {} as PrismaTransaction;
  const prisma = { $transaction: <T>(work: (tx: PrismaTransaction) => Promise<T>) => work(tx) } as unknown as PrismaService;
  return { changes: new Changes(prisma, recorder, feed), queued, announced };
}

describe('Changes', () => {
  it('queues a webhook event in the transaction and hands its live event over after the commit, from the same name', async () => {
    const { changes, queued, announced } = changesWithWitnesses();
    let announcedDuringWork = -1;
    await changes.transaction('t1', async (c) => {
      await c.emit({ type: 'message.created', object: message }, { type: 'conversation.ended', object: conversation });
      announcedDuringWork = announced.length;
    });
    expect(announcedDuringWork).toBe(0);
    expect(queued.map((event) => event.type)).toEqual(['message.created', 'conversation.ended']);
    expect(announced).toEqual([
      {
        conversationId: 'c1',
        events: [
          { kind: 'message', message },
          { kind: 'conversation', conversation },
        ],
        outboxSizeThen: 2,
      },
    ]);
  });

  it('announces nothing of a transaction that rolled back', async () => {
    const { changes, announced } = changesWithWitnesses();
    const failing = changes.transaction('t1', async (c) => {
      await c.emit({ type: 'message.created', object: message });
      throw new Error('rolled back');
    });
    await expect(failing).rejects.toThrow('rolled back');
    expect(announced).toEqual([]);
  });

  it('keeps live-only events out of the outbox, and webhook events no stream shows out of the streams', async () => {
    const { changes, queued, announced } = changesWithWitnesses();
    await changes.transaction('t1', (c) =>
      c.emit({ type: 'conversation.waiting_changed', object: conversation }, { type: 'conversation.deleted', object: { id: 'c2' } }),
    );
    expect(queued.map((event) => event.type)).toEqual(['conversation.deleted']);
    expect(announced.map(({ conversationId, events }) => [conversationId, events.map((event) => event.kind)])).toEqual([['c1', ['conversation']]]);
  });

  it('announces only the last attempt of a runner that retried the work, and nothing when the runner replayed without running it', async () => {
    const { changes, announced } = changesWithWitnesses();
    await changes.transaction(
      't1',
      (c) => c.emit({ type: 'message.created', object: message }),
      async (work) => {
        await work({} as PrismaTransaction);
        return work({} as PrismaTransaction);
      },
    );
    expect(announced).toHaveLength(1);
    expect(announced[0].events).toHaveLength(1);
    await changes.transaction(
      't1',
      (c) => c.emit({ type: 'message.created', object: message }),
      () => Promise.resolve('replayed answer'),
    );
    expect(announced).toHaveLength(1);
  });
});
