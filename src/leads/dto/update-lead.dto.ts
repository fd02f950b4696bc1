import { OmitType, PartialType } from '@nestjs/swagger';
import { IsIn } from 'class-validator';
import { OptionalNotNull } from '../../common/validation/optional-not-null';
import { LeadStatus } from '../../generated/prisma/enums';
import { CreateLeadDto } from './create-lead.dto';

export const LEAD_STATUSES = Object.values(LeadStatus);

/**
 * Any of a lead's own fields, with the creation rules: `null` (or an empty string) clears `phone`,
 * `company` and `message`, `tags` replaces the list (`null`: none), `name` and `email` cannot be
 * null. The bot and the conversation a lead came from are history and never change.
 */
export class UpdateLeadDto extends PartialType(OmitType(CreateLeadDto, ['botId'] as const), { skipNullProperties: false }) {
  /** The new status: new → contacted, qualified or unqualified; contacted → qualified or unqualified; qualified → converted or unqualified; unqualified → new. `converted` is final; the current status is a no-op. */
  @OptionalNotNull()
  @IsIn(LEAD_STATUSES, { message: `must be one of ${LEAD_STATUSES.join(', ')}` })
  status?: LeadStatus;
}
