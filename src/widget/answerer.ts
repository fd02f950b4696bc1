/** A reply to a visitor's question, as the answer pipeline (src/answers) produces it. */
export interface Answer {
  content: string;
  /** The knowledge documents the reply is built from. */
  sources: { id: string; title: string }[];
  /** Nothing in the knowledge base fitted: the content is the bot's fallback message. */
  unanswered: boolean;
}

export interface AnswerInput {
  tenantId: string;
  bot: { id: string; language: string; fallbackMessage: string; showSources: boolean };
  question: string;
}

/** What the widget needs of the answer pipeline; `onDelta` receives the reply as it is written. */
export interface Answerer {
  answer(input: AnswerInput, onDelta?: (text: string) => void): Promise<Answer>;
}

export const ANSWERER = Symbol('ANSWERER');
