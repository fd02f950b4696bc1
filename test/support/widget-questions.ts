import type { TestApp } from './create-test-app';

/** A bot's reply as the widget receives it. */
export interface WidgetReply {
  content: string;
  sources: { id: string; title: string }[];
}

/**
 * Asks bots questions through the widget's API as one visitor per bot would: a session and a
 * conversation per bot on first use, reused for its later questions. `app` is read at each
 * question: suites make their app in beforeAll.
 */
export function widgetAsker(app: () => TestApp): (publicKey: string, botId: string, question: string) => Promise<WidgetReply> {
  const conversations = new Map<string, { token: string; id: string }>();
  return async (publicKey, botId, question) => {
    const t = app();
    let conversation = conversations.get(botId);
    if (!conversation) {
      const token = (await t.http().post('/api/v1/widget/sessions').set('X-API-Key', publicKey).send({ botId }).expect(201)).body.visitorToken as string;
      const id = (await t.http().post('/api/v1/widget/conversations').set('X-API-Key', publicKey).set('X-Visitor-Token', token).send({}).expect(201)).body
        .conversation.id as string;
      conversations.set(botId, (conversation = { token, id }));
    }
    const answer = await t
      .http()
      .post(`/api/v1/widget/conversations/${conversation.id}/messages`)
      .set('X-API-Key', publicKey)
      .set('X-Visitor-Token', conversation.token)
      .send({ content: question })
      .expect(201);
    return answer.body.reply as WidgetReply;
  };
}
