import { publicKeyFor } from '../../api/public-key';
import { useResource } from '../../api/use-resource';
import { CopyButton } from '../../components/copy-button';
import { Loaded } from '../../components/states';
import { useTenant } from '../../session/session-context';

/** The line to paste into the tenant's site, with a public key filled in. */
export function EmbedSnippet({ botId }: { botId: string }) {
  const { tenantId } = useTenant();
  const key = useResource(() => publicKeyFor(tenantId), [tenantId]);
  return (
    <section className="card" aria-labelledby="embed-title">
      <h2 id="embed-title">Embed on your site</h2>
      <Loaded resource={key}>
        {(publicKey) => {
          const snippet = `<script src="${window.location.origin}/widget.js" data-bot-id="${botId}" data-key="${publicKey}" async></script>`;
          return (
            <>
              <p id="embed-hint">Paste this before the closing &lt;/body&gt; tag of every page that should show the chat.</p>
              <pre className="snippet" tabIndex={0} aria-describedby="embed-hint">
                <code data-testid="embed-snippet">{snippet}</code>
              </pre>
              <CopyButton text={snippet} label="Copy snippet" />
              <p>
                <a href={`/widget/demo?botId=${botId}&key=${encodeURIComponent(publicKey)}`} target="_blank" rel="noreferrer">
                  Open the demo page with this bot
                </a>
              </p>
            </>
          );
        }}
      </Loaded>
    </section>
  );
}
