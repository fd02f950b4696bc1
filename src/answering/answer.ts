/** A reply to a visitor's question. */
export interface Answer {
  content: string;
  /** The knowledge documents the reply is built from. */
  sources: { id: string; title: string }[];
  /** Nothing in the knowledge base fitted: the content is the bot's fallback message. */
  unanswered: boolean;
}

export interface AnswerInput {
  tenantId: string;
  bot: { id: string; language: string; knowledgeVersion: number; fallbackMessage: string; showSources: boolean; synonyms: string[] };
  question: string;
}
