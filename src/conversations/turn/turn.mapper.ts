import { ApiProperty } from '@nestjs/swagger';
import { ConversationResponse, MessageResponse, toMessageResponse } from '../conversation.mapper';
import type { Exchange } from './turn';

// A turn's answers, the same on every channel (the widget's and the API channel's), so that a
// bridge reads both alike: a conversation's start and the exchange of a visitor's message. The
// schema names are the widget's, which answered with them first: clients generated from
// openapi.json already use them.

export class WidgetConversationStart {
  @ApiProperty({ type: ConversationResponse })
  conversation: ConversationResponse;

  @ApiProperty({ type: [MessageResponse], description: 'The welcome message, when the bot has one.' })
  messages: MessageResponse[];
}

export class ReplySource {
  @ApiProperty({ format: 'uuid', description: 'The knowledge document.' })
  id: string;

  @ApiProperty()
  title: string;
}

export class WidgetReply extends MessageResponse {
  @ApiProperty({ type: [ReplySource], description: "The documents the reply comes from; empty when the bot's showSources is off or nothing fitted." })
  sources: ReplySource[];
}

export class WidgetExchange {
  @ApiProperty({ type: MessageResponse, description: "The visitor's message, as stored." })
  message: MessageResponse;

  @ApiProperty({
    type: WidgetReply,
    nullable: true,
    description: "The bot's reply; null while a person has the conversation (`handed_off`): the agent's answer arrives on the live stream.",
  })
  reply: WidgetReply | null;
}

export function toWidgetExchange(exchange: Exchange): WidgetExchange {
  if (!exchange.reply) return { message: toMessageResponse(exchange.message), reply: null };
  return {
    message: toMessageResponse(exchange.message),
    reply: { ...toMessageResponse(exchange.reply), sources: exchange.answer.sources.map(({ id, title }) => ({ id, title })) },
  };
}
