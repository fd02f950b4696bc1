import { AppError, NotFoundError } from '../../common/errors/app-error';
import { ErrorCode } from '../../common/errors/error-codes';
import type { Answer, AnswerInput } from '../../answering/answer';
import type { ReplyLimits } from '../../usage/message-quota.repository';
import type { ConversationRow, MessageRow } from '../conversations.repository';

/** The bot's settings a turn reads: what its answer needs, and whether an unanswered question hands off. */
export type TurnBot = AnswerInput['bot'] & { handoffEnabled: boolean; handoffOnFallback: boolean };

/** A visitor's message to a bot, as a channel hands it to the turn (its caller already resolved). */
export interface TurnRequest {
  tenantId: string;
  bot: TurnBot;
  conversation: ConversationRow;
  content: string;
  /** The quota the bot's reply is counted under: the plan's month, and the channel's day if it has one. */
  limits: ReplyLimits;
  /**
   * The channel's own limits on the bot's replies (the widget's per address), checked when the
   * bot is about to reply; not when a person holds the conversation.
   */
  beforeReply?: () => Promise<void>;
  /** Receives the reply as it is written (a streamed answer). */
  onDelta?: (text: string) => void;
}

/** The visitor's message and the bot's reply, stored together; no reply while a person has the conversation. */
export type Exchange = { message: MessageRow; reply: MessageRow; answer: Answer } | { message: MessageRow; reply: null; answer: null };

/** A message to a conversation that has ended. */
export function conversationEnded(): AppError {
  return new AppError(ErrorCode.CONVERSATION_ENDED, 'This conversation has ended; start a new one.');
}

/**
 * The bot a channel's call names, if it may answer: `missing()` when it is not the tenant's (404 by
 * default), 409 BOT_INACTIVE when it is switched off. Every channel checks its bot with this.
 */
export function answeringBot<Bot extends { isActive: boolean }>(bot: Bot | null | undefined, missing: () => AppError = () => new NotFoundError('Bot')): Bot {
  if (!bot) throw missing();
  if (!bot.isActive) throw new AppError(ErrorCode.BOT_INACTIVE, 'This bot is inactive: it answers no messages.');
  return bot;
}
