import { IsIn } from 'class-validator';
import { LeadStatus } from '../../generated/prisma/enums';

export const LEAD_STATUSES = Object.values(LeadStatus);

export class UpdateLeadDto {
  /** The new status: new → contacted, qualified or unqualified; contacted → qualified or unqualified; qualified → converted or unqualified; unqualified → new. `converted` is final; the current status is a no-op. */
  @IsIn(LEAD_STATUSES, { message: `must be one of ${LEAD_STATUSES.join(', ')}` })
  status!: LeadStatus;
}
