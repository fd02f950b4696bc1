/** The scopes of SPEC 5.3. */
export const Scope = {
  BotsRead: 'bots:read',
  ConversationsRead: 'conversations:read',
  LeadsRead: 'leads:read',
  LeadsWrite: 'leads:write',
  WebhooksManage: 'webhooks:manage',
  AnalyticsRead: 'analytics:read',
  SettingsRead: 'settings:read',
  SettingsWrite: 'settings:write',
} as const;

export type Scope = (typeof Scope)[keyof typeof Scope];

export const ALL_SCOPES: readonly Scope[] = Object.values(Scope);
