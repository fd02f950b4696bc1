import { IsIn, IsOptional, IsUUID } from 'class-validator';
import { DateRangePageQueryDto } from '../../common/paging/date-range';
import { ConversationStatus } from '../../generated/prisma/enums';

export const CONVERSATION_STATUSES = Object.values(ConversationStatus);

export class ListConversationsQueryDto extends DateRangePageQueryDto {
  /** Only the conversations of this bot (a bot of another tenant gives an empty page). */
  @IsOptional() @IsUUID('all', { message: 'must be a UUID' })
  botId?: string;

  @IsOptional() @IsIn(CONVERSATION_STATUSES, { message: `must be one of ${CONVERSATION_STATUSES.join(', ')}` })
  status?: ConversationStatus;
}
