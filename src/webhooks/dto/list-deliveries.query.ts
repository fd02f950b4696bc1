import { IsIn, IsOptional } from 'class-validator';
import { PageQueryDto } from '../../common/paging/pagination';
import { WebhookDeliveryStatus } from '../../generated/prisma/enums';

export const DELIVERY_STATUSES = Object.values(WebhookDeliveryStatus);

export class ListDeliveriesQueryDto extends PageQueryDto {
  @IsOptional()
  @IsIn(DELIVERY_STATUSES, { message: `must be one of ${DELIVERY_STATUSES.join(', ')}` })
  status?: WebhookDeliveryStatus;
}
