import { IsIn } from 'class-validator';
import { LeadStatus } from '../../generated/prisma/enums';

export const LEAD_STATUSES = Object.values(LeadStatus);

export class UpdateLeadDto {
  @IsIn(LEAD_STATUSES, { message: `must be one of ${LEAD_STATUSES.join(', ')}` })
  status!: LeadStatus;
}
