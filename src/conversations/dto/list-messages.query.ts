import { PageQueryDto } from '../../common/paging/pagination';

/** Messages page 50 at a time by default, oldest first. */
export const MESSAGES_DEFAULT_LIMIT = 50;

export class ListMessagesQueryDto extends PageQueryDto {}
