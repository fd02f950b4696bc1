/** The settings of an OpenAI-compatible chat completions endpoint (AppConfig.llm). */
export interface LlmSettings {
  baseUrl: string;
  model: string;
  apiKey: string;
  timeoutMs: number;
}

export interface ChatMessage {
  role: 'system' | 'user';
  content: string;
}

/**
 * Streams a chat completion (`POST <base>/chat/completions`, `stream: true`) and calls `onDelta`
 * with each piece of text as it arrives; resolves with the whole text. Plain `fetch`: the
 * endpoint is the operator's own choice (LLM_BASE_URL), not a tenant's, so no address filter.
 * Rejects on a non-2xx answer, a malformed stream, or the timeout, with what arrived so far in
 * `error.partial` so that the caller can keep a reply already under way.
 */
export async function streamChatCompletion(settings: LlmSettings, messages: ChatMessage[], onDelta: (text: string) => void): Promise<string> {
  let text = '';
  try {
    const response = await fetch(`${settings.baseUrl}/chat/completions`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Accept: 'text/event-stream', Authorization: `Bearer ${settings.apiKey}` },
      body: JSON.stringify({ model: settings.model, stream: true, temperature: 0.2, messages }),
      signal: AbortSignal.timeout(settings.timeoutMs),
    });
    if (!response.ok || !response.body) throw new Error(`the model endpoint answered ${response.status}`);
    const decoder = new TextDecoder();
    let buffered = '';
    for await (const bytes of response.body as unknown as AsyncIterable<Uint8Array>) {
      buffered += decoder.decode(bytes, { stream: true });
      const lines = buffered.split('\n');
      buffered = lines.pop() ?? '';
      for (const line of lines) {
        const data = line.startsWith('data:') ? line.slice(5).trim() : undefined;
        if (!data) continue;
        if (data === '[DONE]') return text;
        const piece = (JSON.parse(data) as { choices?: { delta?: { content?: string } }[] }).choices?.[0]?.delta?.content;
        if (!piece) continue;
        text += piece;
        onDelta(piece);
      }
    }
    return text;
  } catch (error) {
    throw Object.assign(new Error(`LLM reply failed: ${error instanceof Error ? error.message : String(error)}`), { partial: text });
  }
}
