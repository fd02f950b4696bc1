import { lazy, Suspense } from 'react';
import { api, call } from '../api/client';
import { useResource } from '../api/use-resource';
import { FirstRunChecklist } from '../components/checklist';
import { Loaded, PageTitle } from '../components/states';

const Chart = lazy(() => import('../components/chart'));

const METRICS = [
  { metric: 'conversations', label: 'Conversations', color: '#1d4ed8', dash: undefined },
  { metric: 'messages', label: 'Messages', color: '#047857', dash: [6, 3] },
  { metric: 'leads', label: 'Leads', color: '#b45309', dash: [2, 3] },
  { metric: 'visitors', label: 'Visitors', color: '#7c3aed', dash: [8, 2, 2, 2] },
] as const;

export default function OverviewPage() {
  const tenant = useResource(() => call(api.GET('/api/v1/tenant')), []);
  const figures = useResource(() => call(api.GET('/api/v1/analytics/overview', { params: { query: {} } })), []);
  const series = useResource(async () => {
    const answers = await Promise.all(METRICS.map(({ metric }) => call(api.GET('/api/v1/analytics/timeseries', { params: { query: { metric } } }))));
    return {
      days: answers[0].points.map((point) => point.period),
      series: answers.map((answer, index) => ({ ...METRICS[index], values: answer.points.map((point) => point.count) })),
    };
  }, []);
  return (
    <>
      <PageTitle>Overview</PageTitle>
      <FirstRunChecklist />
      <Loaded resource={tenant}>
        {({ tenant }) => (
          <section className="card" aria-labelledby="usage-title">
            <h2 id="usage-title">
              {tenant.name}: plan {tenant.plan}
            </h2>
            <dl className="usage">
              <div>
                <dt>Messages this month</dt>
                <dd>
                  {tenant.usage.messagesThisMonth} of {tenant.limits.messagesLimit}
                  <meter min={0} max={tenant.limits.messagesLimit} value={tenant.usage.messagesThisMonth} aria-label="Messages used this month" />
                </dd>
              </div>
              <div>
                <dt>Bots</dt>
                <dd>
                  {tenant.usage.botCount} of {tenant.limits.botsLimit}
                </dd>
              </div>
              <div>
                <dt>Knowledge characters</dt>
                <dd>
                  {count(tenant.usage.knowledgeCharacters)} of {count(tenant.limits.knowledgeCharactersLimit)}
                  <meter
                    min={0}
                    max={tenant.limits.knowledgeCharactersLimit}
                    value={tenant.usage.knowledgeCharacters}
                    aria-label="Knowledge characters used of the plan's limit"
                  />
                </dd>
              </div>
              <div>
                <dt>API requests this hour</dt>
                <dd>
                  {tenant.limits.apiAccess ? (
                    <>
                      {tenant.usage.requestsThisHour} of {tenant.limits.requestsPerHour}
                      <meter min={0} max={tenant.limits.requestsPerHour} value={tenant.usage.requestsThisHour} aria-label="API requests used this hour" />
                    </>
                  ) : (
                    'No API access (Pro and higher)'
                  )}
                </dd>
              </div>
            </dl>
          </section>
        )}
      </Loaded>
      <Loaded resource={figures}>
        {(data) => (
          <section className="card" aria-labelledby="figures-title">
            <h2 id="figures-title">Last 30 days</h2>
            <dl className="usage">
              <div>
                <dt>Conversations</dt>
                <dd>{data.conversations}</dd>
              </div>
              <div>
                <dt>Visitor messages</dt>
                <dd>{data.messages.user}</dd>
              </div>
              <div>
                <dt>Leads</dt>
                <dd>{data.leads}</dd>
              </div>
              <div>
                <dt>Unanswered</dt>
                <dd>{Math.round(data.unansweredRate * 100)}%</dd>
              </div>
              <div>
                <dt>Handed off</dt>
                <dd>{Math.round(data.handoffRate * 100)}%</dd>
              </div>
              <div>
                <dt>First agent reply (median)</dt>
                <dd>{data.medianFirstAgentResponseSeconds === null ? '—' : formatSeconds(data.medianFirstAgentResponseSeconds)}</dd>
              </div>
            </dl>
          </section>
        )}
      </Loaded>
      <Loaded resource={series}>
        {(data) => (
          <Suspense
            fallback={
              <p role="status" className="loading">
                Loading chart…
              </p>
            }
          >
            <Chart
              title="Conversations, messages, leads and visitors per day"
              days={data.days}
              series={data.series.map((each) => ({ label: each.label, color: each.color, dash: each.dash ? [...each.dash] : undefined, values: each.values }))}
            />
          </Suspense>
        )}
      </Loaded>
    </>
  );
}

/** A large count for people: 1,000,000 rather than 1000000. */
const count = (value: number) => value.toLocaleString('en-GB');

/** A duration for people: seconds under a minute, minutes under an hour, hours beyond. */
function formatSeconds(seconds: number): string {
  if (seconds < 60) return `${Math.round(seconds)} s`;
  if (seconds < 3600) return `${Math.round(seconds / 60)} min`;
  return `${(seconds / 3600).toFixed(1)} h`;
}
