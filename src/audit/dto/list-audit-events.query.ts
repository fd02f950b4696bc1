import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsOptional, IsString, Matches, MaxLength } from 'class-validator';
import { DateRangePageQueryDto } from '../../common/paging/date-range';

const UUID = '[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}';
/** The actor names the event recorder writes (src/events/actor.ts). */
const ACTOR = new RegExp(`^(?:(?:user|api-key):${UUID}|admin-api|system)$`);
const ACTION = /^[a-z_]{1,50}\.[a-z_]{1,50}$/;

/** The audit log's filters: paging, a `from`/`to` window on `createdAt`, the actor and the action. */
export class ListAuditEventsQueryDto extends DateRangePageQueryDto {
  @ApiPropertyOptional({
    maxLength: 45,
    pattern: ACTOR.source,
    description: 'Only the events of this actor: `user:<user id>`, `api-key:<key id>`, `admin-api` or `system`.',
    example: 'admin-api',
  })
  @IsOptional()
  @IsString({ message: 'must be a string' })
  @MaxLength(45, { message: 'must be user:<id>, api-key:<id>, admin-api or system' })
  @Matches(ACTOR, { message: 'must be user:<id>, api-key:<id>, admin-api or system' })
  actor?: string;

  @ApiPropertyOptional({ maxLength: 101, pattern: ACTION.source, description: 'Only the events of this action, e.g. `bot.updated`.', example: 'bot.updated' })
  @IsOptional()
  @IsString({ message: 'must be a string' })
  @MaxLength(101, { message: 'must be an action such as bot.updated' })
  @Matches(ACTION, { message: 'must be an action such as bot.updated' })
  action?: string;
}
