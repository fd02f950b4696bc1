import { Plan } from '../generated/prisma/enums';

export { Plan };

export interface PlanLimits {
  name: Plan;
  apiAccess: boolean;
  botsLimit: number;
  /** Messages per calendar month. */
  messagesLimit: number;
  requestsPerHour: number;
  burstPerSecond: number;
  /** Characters of knowledge (all the tenant's documents together). */
  knowledgeCharactersLimit: number;
}

/** The one place a plan's numbers live (API_DECISIONS, Keys and plans). */
export const PLANS: Readonly<Record<Plan, PlanLimits>> = {
  free: { name: 'free', apiAccess: false, botsLimit: 1, messagesLimit: 500, requestsPerHour: 100, burstPerSecond: 10, knowledgeCharactersLimit: 1_000_000 },
  pro: { name: 'pro', apiAccess: true, botsLimit: 5, messagesLimit: 10_000, requestsPerHour: 1_000, burstPerSecond: 50, knowledgeCharactersLimit: 20_000_000 },
  business: {
    name: 'business',
    apiAccess: true,
    botsLimit: 25,
    messagesLimit: 50_000,
    requestsPerHour: 5_000,
    burstPerSecond: 100,
    knowledgeCharactersLimit: 100_000_000,
  },
  enterprise: {
    name: 'enterprise',
    apiAccess: true,
    botsLimit: 100,
    messagesLimit: 250_000,
    requestsPerHour: 25_000,
    burstPerSecond: 500,
    knowledgeCharactersLimit: 1_000_000_000,
  },
};

export const PLAN_NAMES = Object.keys(PLANS) as Plan[];

/** The plans' request limits, as the app module hands them to the rate limiter. */
export const PLAN_REQUEST_LIMITS: Readonly<Record<Plan, { requestsPerHour: number; burstPerSecond: number }>> = Object.fromEntries(
  Object.values(PLANS).map((plan) => [plan.name, { requestsPerHour: plan.requestsPerHour, burstPerSecond: plan.burstPerSecond }]),
) as Record<Plan, { requestsPerHour: number; burstPerSecond: number }>;
