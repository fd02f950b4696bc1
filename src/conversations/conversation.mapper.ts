import { ApiExtraModels, ApiProperty, ApiPropertyOptional, getSchemaPath } from '@nestjs/swagger';
import { Pagination } from '../common/paging/pagination';
import { ConversationChannel, ConversationStatus, MessageRole } from '../generated/prisma/enums';
import type { ConversationRow, MessageRow } from './conversations.repository';

/** Who the conversation is with (API_DECISIONS part 4, Known visitors). */
export class ConversationVisitor {
  @ApiProperty({ description: 'The visitor id: the same on every device for an identified visitor.' })
  id: string;

  @ApiProperty({
    type: String,
    nullable: true,
    description: 'The tenant’s own id of its user (a verified identity token’s `sub`, or the API channel’s `externalId`); null: anonymous.',
  })
  externalId: string | null;

  @ApiProperty({ type: String, nullable: true })
  email: string | null;

  @ApiProperty({ type: String, nullable: true })
  name: string | null;

  @ApiProperty({ description: 'The tenant vouched for this visitor: a signed identity token, or its API key on the API channel.' })
  verified: boolean;
}

@ApiExtraModels(ConversationVisitor)
export class ConversationResponse {
  @ApiProperty({ format: 'uuid' })
  id: string;

  @ApiProperty({ format: 'uuid' })
  botId: string;

  @ApiProperty({ enum: Object.values(ConversationStatus), enumName: 'ConversationStatus' })
  status: ConversationStatus;

  @ApiProperty({ enum: Object.values(ConversationChannel), enumName: 'ConversationChannel' })
  channel: ConversationChannel;

  @ApiProperty({ type: String, nullable: true, description: 'The widget’s visitor id, when known.' })
  visitorId: string | null;

  // An explicit anyOf: @nestjs/swagger writes a nullable class as `allOf: [$ref]` with `type: ["object", "null"]`,
  // which still refuses null through the reference's own `type: "object"`.
  @ApiProperty({
    anyOf: [{ $ref: getSchemaPath(ConversationVisitor) }, { type: 'null' }],
    description: 'The visitor; null for a conversation recorded without one.',
  })
  visitor: ConversationVisitor | null;

  @ApiProperty({ type: String, format: 'uuid', nullable: true, description: 'The lead captured in this conversation.' })
  leadId: string | null;

  @ApiProperty({ type: 'integer', minimum: 0 })
  messageCount: number;

  @ApiProperty({ type: String, format: 'date-time', nullable: true })
  lastMessageAt: string | null;

  @ApiProperty({ type: String, format: 'date-time', nullable: true })
  endedAt: string | null;

  @ApiProperty({
    type: String,
    format: 'date-time',
    nullable: true,
    description: 'When a person last took the conversation over; kept after it is released or ended.',
  })
  handedOffAt: string | null;

  @ApiProperty({ type: String, format: 'uuid', nullable: true, description: 'The user working the conversation (`PUT .../assignee`).' })
  assigneeId: string | null;

  @ApiProperty({
    type: String,
    format: 'date-time',
    nullable: true,
    description: 'While handed off: the first visitor message no agent has answered yet (or the visitor’s request for a person); null when nobody waits.',
  })
  waitingSince: string | null;

  @ApiProperty({ format: 'date-time' })
  createdAt: string;

  @ApiProperty({ format: 'date-time' })
  updatedAt: string;
}

export class MessageResponse {
  @ApiProperty({ format: 'uuid' })
  id: string;

  @ApiProperty({ format: 'uuid' })
  conversationId: string;

  @ApiProperty({ enum: Object.values(MessageRole), enumName: 'MessageRole', description: '`agent` is a human operator.' })
  role: MessageRole;

  @ApiProperty()
  content: string;

  @ApiPropertyOptional({ minLength: 1, maxLength: 100, description: 'On agent messages only: the name the visitor sees.' })
  authorName?: string;

  @ApiProperty({ format: 'date-time' })
  createdAt: string;
}

export class ConversationListResponse {
  @ApiProperty({ type: [ConversationResponse], description: 'Newest first.' })
  conversations: ConversationResponse[];

  @ApiProperty({ type: Pagination })
  pagination: Pagination;
}

export class ConversationEnvelope {
  @ApiProperty({ type: ConversationResponse })
  conversation: ConversationResponse;
}

export class MessageEnvelope {
  @ApiProperty({ type: MessageResponse })
  message: MessageResponse;
}

export class MessageListResponse {
  @ApiProperty({ type: [MessageResponse], description: 'Oldest first.' })
  messages: MessageResponse[];

  @ApiProperty({ type: Pagination })
  pagination: Pagination;
}

export function toConversationResponse(row: ConversationRow): ConversationResponse {
  return {
    id: row.id,
    botId: row.botId,
    status: row.status,
    channel: row.channel,
    visitorId: row.visitorId,
    visitor: row.visitorId === null ? null : visitorOf({ ...row, visitorId: row.visitorId }),
    leadId: row.leadId,
    messageCount: row.messageCount,
    lastMessageAt: row.lastMessageAt?.toISOString() ?? null,
    endedAt: row.endedAt?.toISOString() ?? null,
    handedOffAt: row.handedOffAt?.toISOString() ?? null,
    assigneeId: row.assigneeId,
    waitingSince: row.waitingSince?.toISOString() ?? null,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}

function visitorOf(row: ConversationRow & { visitorId: string }): ConversationVisitor {
  return {
    id: row.visitorId,
    externalId: row.visitorExternalId,
    email: row.visitorEmail,
    name: row.visitorName,
    verified: row.visitorExternalId !== null,
  };
}

export function toMessageResponse(row: MessageRow): MessageResponse {
  return {
    id: row.id,
    conversationId: row.conversationId,
    role: row.role,
    content: row.content,
    // Only agent messages have an author: the other roles' shape stays as it was.
    ...(row.role === 'agent' && row.authorName ? { authorName: row.authorName } : {}),
    createdAt: row.createdAt.toISOString(),
  };
}
