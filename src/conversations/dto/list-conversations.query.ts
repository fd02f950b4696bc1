import { ApiPropertyOptional } from '@nestjs/swagger';
import type { ConversationSort } from '../conversations.repository';
import { IsIn, IsOptional, IsString, IsUUID, Length } from 'class-validator';
import { DateRangePageQueryDto } from '../../common/paging/date-range';
import { ConversationStatus } from '../../generated/prisma/enums';

export const CONVERSATION_STATUSES = Object.values(ConversationStatus);
const CONVERSATION_SORTS: readonly ConversationSort[] = ['newest', 'waiting'];

export class ListConversationsQueryDto extends DateRangePageQueryDto {
  /** Only the conversations of this bot (a bot of another tenant gives an empty page). */
  @IsOptional()
  @IsUUID('all', { message: 'must be a UUID' })
  botId?: string;

  @IsOptional()
  @IsIn(CONVERSATION_STATUSES, { message: `must be one of ${CONVERSATION_STATUSES.join(', ')}` })
  status?: ConversationStatus;

  @ApiPropertyOptional({
    minLength: 1,
    maxLength: 200,
    description:
      "Only the conversations of the visitor the tenant identified with this id (an identity token's `sub`, the API channel's `externalId`); none for an id never seen.",
  })
  @IsOptional()
  @IsString({ message: 'must be a string' })
  @Length(1, 200, { message: 'must be 1 to 200 characters' })
  externalId?: string;

  @ApiPropertyOptional({
    enum: CONVERSATION_SORTS,
    default: 'newest',
    description:
      '`waiting`: the conversations a visitor waits in first, longest wait first (`waitingSince`), then newest first; an agent’s queue is `?status=handed_off&sort=waiting`.',
  })
  @IsOptional()
  @IsIn(CONVERSATION_SORTS, { message: `must be one of ${CONVERSATION_SORTS.join(', ')}` })
  sort?: ConversationSort;
}
