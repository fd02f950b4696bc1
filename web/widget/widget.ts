// The chat widget a tenant embeds with one tag:
//   <script src="https://api.example.com/widget.js" data-bot-id="<botId>" data-key="svc_pk_..." async></script>
// A site that knows its signed-in user adds data-identity-token="<JWT its back end signed>", or
// calls window.ChatbotWidget.identify(token) once the user signs in (identify(null) on sign-out).
// Dependency-free, in a shadow root (the host page's CSS stays out), texts written with
// textContent only (nothing the server or the visitor sends is parsed as HTML). Renders nothing at
// all when the bot cannot be loaded (an inactive bot answers 409 BOT_INACTIVE), nor on a site the
// tenant did not list in allowedOrigins (the site owner gets a console warning saying what to add).
// The API's answers are typed from openapi.json (examples/api-types.ts, `npm run client:generate`);
// the types vanish in the build (web/widget/vite.config.mts), which leaves one dependency-free script.
import type { components } from '../../examples/api-types';

type Schemas = components['schemas'];
type Bot = Schemas['WidgetBot'];
type Message = Schemas['MessageResponse'];
/** An error answer, or `{}` when its body was not JSON. */
type ApiError = Partial<Schemas['ErrorEnvelope']>;
/** What the widget keeps in sessionStorage to resume the visitor's conversation after a reload. */
interface Session {
  token: string;
  conversationId: string;
  expiresAt: string;
  /** The identified user's id (the identity token's `sub`), null for an anonymous visitor: a session is resumed only for the same person. */
  identity: string | null;
}
/** The page's handle on the widget: `window.ChatbotWidget`, shared by every widget script on the page. */
interface WidgetGlobal {
  /** A token for the user who just signed in (a fresh session as that user), or null once they sign out (a fresh anonymous one). */
  identify(token: string | null): void;
  /** One listener per widget on the page. */
  readonly widgets: ((token: string | null) => void)[];
}

(() => {
  const script = document.currentScript as HTMLScriptElement | null;
  const botId = script?.dataset.botId;
  const key = script?.dataset.key;
  if (!script || !botId || !key) return;
  const api = `${new URL(script.src).origin}/api/v1/widget`;
  // The identity token the page gave (embed option or identify()); dropped when the service refuses it.
  let identityToken: string | undefined = script.dataset.identityToken || undefined;
  const sessionKey = `chatbot-widget:${botId}`;
  // The service mints visitor ids: the anonymous visitor's last token (even expired, up to 30 days) keeps the visitor.
  const visitorTokenKey = `chatbot-widget:visitor-token:${botId}`;
  // Set once the widget is on screen: starts its conversation over for the new identity.
  let restart: (() => void) | undefined;
  const global = ((window as unknown as { ChatbotWidget?: WidgetGlobal }).ChatbotWidget ??= {
    widgets: [],
    identify(token) {
      for (const widget of this.widgets) widget(token);
    },
  });
  global.widgets.push((token) => {
    const samePerson = identityOf(token || undefined) === identityOf(identityToken);
    identityToken = token || undefined;
    // A fresh token for the same user (or null again) changes nothing: the conversation goes on.
    if (samePerson) return;
    // Neither the anonymous visitor nor the previous person's conversation carries over.
    sessionStorage.removeItem(sessionKey);
    localStorage.removeItem(visitorTokenKey);
    restart?.();
  });

  const TEXTS = {
    en: {
      open: 'Open chat',
      close: 'Close chat',
      placeholder: 'Type your question',
      label: 'Your question',
      send: 'Send',
      sources: 'Sources',
      lead: 'Leave your contact details',
      name: 'Name',
      email: 'E-mail',
      phone: 'Phone',
      company: 'Company',
      submit: 'Send details',
      thanks: 'Thank you! We will get back to you.',
      busy: 'Too many messages right now. Please try again later.',
      failed: 'Something went wrong. Please try again.',
      signIn: 'Chat is unavailable until you sign in on this site.',
      person: 'Talk to a person',
      agent: 'Support',
    },
    de: {
      open: 'Chat öffnen',
      close: 'Chat schließen',
      placeholder: 'Ihre Frage',
      label: 'Ihre Frage',
      send: 'Senden',
      sources: 'Quellen',
      lead: 'Kontaktdaten hinterlassen',
      name: 'Name',
      email: 'E-Mail',
      phone: 'Telefon',
      company: 'Firma',
      submit: 'Daten senden',
      thanks: 'Danke! Wir melden uns bei Ihnen.',
      busy: 'Gerade zu viele Nachrichten. Bitte später erneut versuchen.',
      failed: 'Etwas ist schiefgelaufen. Bitte erneut versuchen.',
      signIn: 'Der Chat ist erst verfügbar, wenn Sie sich auf dieser Website anmelden.',
      person: 'Mit einem Menschen sprechen',
      agent: 'Support',
    },
  };

  const call = async (path: string, init: RequestInit & { token?: string } = {}): Promise<Response> =>
    fetch(`${api}${path}`, {
      ...init,
      headers: {
        'X-API-Key': key,
        ...(init.body ? { 'Content-Type': 'application/json' } : {}),
        ...(init.token ? { 'X-Visitor-Token': init.token } : {}),
        ...(init.headers as Record<string, string>),
      },
    });

  const element = <K extends keyof HTMLElementTagNameMap>(tag: K, attributes: Record<string, string> = {}, text?: string): HTMLElementTagNameMap[K] => {
    const node = document.createElement(tag);
    for (const [name, value] of Object.entries(attributes)) node.setAttribute(name, value);
    if (text !== undefined) node.textContent = text;
    return node;
  };

  /** For the site owner, not the visitor: the refusal's answer is not readable cross-origin, so say what to check. */
  const warnOrigin = (certain: boolean): void => {
    const advice = `add ${location.origin} to the tenant's allowedOrigins setting (PATCH /api/v1/settings)`;
    console.warn(
      certain
        ? `Chat widget: this site's origin is not allowed; ${advice}.`
        : `Chat widget: the bot could not be loaded. If this site's origin is not allowed, ${advice}.`,
    );
  };

  async function start(): Promise<void> {
    const answer = await call(`/bots/${encodeURIComponent(botId!)}`).catch(() => undefined);
    if (!answer) return warnOrigin(false);
    if (!answer.ok) {
      if ((await failure(answer)).error?.code === 'ORIGIN_NOT_ALLOWED') warnOrigin(true);
      return;
    }
    const bot = ((await answer.json()) as Schemas['WidgetBotEnvelope']).bot;
    render(bot);
  }

  function render(bot: Bot): void {
    const t = bot.language === 'de' ? TEXTS.de : TEXTS.en;
    // The colour goes into CSS: only a hex colour is taken, with a text colour that stays readable on it.
    const color = /^#(?:[0-9a-f]{3}){1,2}$/i.test(bot.primaryColor) ? bot.primaryColor : '#2563eb';
    const ink = luminance(color) > 0.179 ? '#111' : '#fff';
    const host = element('div', { 'data-chatbot-widget': bot.id });
    const root = host.attachShadow({ mode: 'open' });
    const style = element('style');
    style.textContent = `
      :host { all: initial; }
      * { box-sizing: border-box; font: 14px/1.4 system-ui, sans-serif; }
      .launcher { position: fixed; right: 20px; bottom: 20px; width: 56px; height: 56px; border-radius: 50%; border: 0; background: ${color}; color: ${ink}; font-size: 24px; cursor: pointer; box-shadow: 0 2px 8px rgba(0,0,0,.3); }
      .launcher:focus-visible, button:focus-visible, input:focus-visible { outline: 3px solid #111; outline-offset: 2px; }
      .panel { position: fixed; right: 20px; bottom: 88px; width: 340px; max-height: min(520px, calc(100vh - 108px)); display: flex; flex-direction: column; background: #fff; color: #111; border-radius: 12px; box-shadow: 0 4px 24px rgba(0,0,0,.25); overflow: hidden; }
      .panel[hidden] { display: none; }
      header { display: flex; justify-content: space-between; align-items: center; padding: 10px 14px; background: ${color}; color: ${ink}; font-weight: 600; }
      header button { background: none; border: 0; color: inherit; font-size: 20px; cursor: pointer; }
      .log { flex: 1 1 auto; min-height: 160px; overflow-y: auto; padding: 12px; display: flex; flex-direction: column; gap: 8px; }
      .bubble { padding: 8px 10px; border-radius: 10px; max-width: 85%; white-space: pre-wrap; }
      .bubble .author { font-size: 12px; font-weight: 600; margin-bottom: 2px; }
      .assistant, .agent { background: #f1f3f5; align-self: flex-start; }
      .user { background: ${color}; color: ${ink}; align-self: flex-end; }
      .sources { font-size: 12px; color: #555; margin-top: 4px; }
      .error { color: #b00020; font-size: 13px; }
      .suggestions { display: flex; flex-wrap: wrap; gap: 6px; padding: 0 12px 8px; }
      .suggestions button, .lead-toggle, .handoff { border: 1px solid ${color}; color: ${ink === '#fff' ? color : '#111'}; background: #fff; border-radius: 14px; padding: 4px 10px; cursor: pointer; }
      form.ask { display: flex; gap: 6px; padding: 10px; border-top: 1px solid #e5e5e5; }
      form.ask input { flex: 1; padding: 8px; border: 1px solid #ccc; border-radius: 8px; }
      form button[type=submit] { background: ${color}; color: ${ink}; border: 0; border-radius: 8px; padding: 8px 12px; cursor: pointer; }
      form.lead { display: grid; gap: 6px; padding: 10px 12px; border-top: 1px solid #e5e5e5; }
      form.lead label { display: grid; gap: 2px; font-size: 12px; }
      form.lead input { padding: 6px; border: 1px solid #ccc; border-radius: 6px; }
      form.lead[hidden] { display: none; }
      .lead-area { flex: 0 1 auto; min-height: 0; overflow-y: auto; }
      .lead-status { margin: 0; padding: 8px 12px 10px; }
      .lead-status:focus { outline: none; }
      .launcher svg { width: 26px; height: 26px; fill: currentColor; }
      .lead-toggle, .handoff { margin: 0 12px 8px; }
      .visually-hidden { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); white-space: nowrap; }`;

    const launcher = element('button', { class: 'launcher', type: 'button', 'aria-label': t.open, 'aria-expanded': 'false', 'aria-controls': 'chat-panel' });
    // A speech bubble, drawn: an emoji depends on the visitor's fonts.
    const icon = document.createElementNS('http://www.w3.org/2000/svg', 'svg');
    icon.setAttribute('viewBox', '0 0 24 24');
    icon.setAttribute('aria-hidden', 'true');
    const bubblePath = document.createElementNS('http://www.w3.org/2000/svg', 'path');
    bubblePath.setAttribute('d', 'M4 3h16a2 2 0 0 1 2 2v11a2 2 0 0 1-2 2H9l-5 4v-4H4a2 2 0 0 1-2-2V5a2 2 0 0 1 2-2z');
    icon.append(bubblePath);
    launcher.append(icon);
    const panel = element('div', { class: 'panel', id: 'chat-panel', role: 'dialog', 'aria-label': bot.name, lang: bot.language });
    panel.hidden = true;
    const header = element('header', {}, bot.name);
    const close = element('button', { type: 'button', 'aria-label': t.close }, '×');
    header.append(close);
    const log = element('div', { class: 'log', role: 'log', 'aria-live': 'polite' });
    const suggestions = element('div', { class: 'suggestions' });
    const ask = element('form', { class: 'ask' });
    const label = element('label', { for: 'chat-question', class: 'visually-hidden' }, t.label);
    const input = element('input', { id: 'chat-question', name: 'question', autocomplete: 'off', placeholder: t.placeholder, maxlength: '4000' });
    ask.append(label, input, element('button', { type: 'submit' }, t.send));
    panel.append(header, log, suggestions);
    if (bot.leadCapture.enabled) panel.append(leadForm(bot, t));
    if (bot.handoff?.enabled) panel.append(handoffButton(bot.handoff.message, t.person));
    panel.append(ask);
    root.append(style, launcher, panel);
    document.body.append(host);

    let session: Promise<Session> | undefined;
    // Ends the live stream of the conversation shown, when another one replaces it.
    let following = new AbortController();
    // One conversation per tab; after a failure the next action tries again.
    const conversation = (): Promise<Session> => {
      if (!session) {
        const current = resume(bot, log);
        session = current;
        const stream = following;
        // Agent messages arrive on the conversation's live stream.
        void current.then((started) => follow(started, log, t.agent, stream.signal)).catch(() => undefined);
        current.catch(() => {
          if (session === current) session = undefined;
        });
      }
      return session;
    };
    // A new identity: the transcript shown belongs to someone else; the open panel starts over at once.
    restart = () => {
      following.abort();
      following = new AbortController();
      session = undefined;
      log.replaceChildren();
      if (!panel.hidden) void show();
    };
    // This site is not in allowedOrigins: nothing for the visitor to do, so nothing stays on screen.
    const refusedOrigin = (error: unknown): boolean => {
      if ((error as ApiError)?.error?.code !== 'ORIGIN_NOT_ALLOWED') return false;
      host.remove();
      warnOrigin(true);
      return true;
    };
    const problem = (error: unknown): string => {
      const code = (error as ApiError)?.error?.code;
      if (code === 'IDENTITY_REQUIRED') return t.signIn;
      return code === 'RATE_LIMIT_EXCEEDED' || code === 'MESSAGE_LIMIT_REACHED' ? t.busy : ((error as ApiError)?.error?.message ?? t.failed);
    };
    // The conversation in the panel: resumed or started, or why not.
    const show = () =>
      conversation().catch((error: unknown) => {
        if (refusedOrigin(error)) return;
        // Said once: opening the panel again after a refusal does not repeat it.
        if (log.lastElementChild?.textContent === problem(error)) return;
        log.append(element('div', { class: 'bubble assistant error' }, problem(error)));
      });
    const open = (visible: boolean) => {
      panel.hidden = !visible;
      launcher.setAttribute('aria-expanded', String(visible));
      if (visible) {
        void show();
        input.focus();
      } else launcher.focus();
    };
    launcher.addEventListener('click', () => open(panel.hidden));
    close.addEventListener('click', () => open(false));
    panel.addEventListener('keydown', (event) => {
      if (event.key === 'Escape') open(false);
    });
    for (const question of bot.suggestedQuestions) {
      const button = element('button', { type: 'button' }, question);
      button.addEventListener('click', () => void send(question));
      suggestions.append(button);
    }
    ask.addEventListener('submit', (event) => {
      event.preventDefault();
      const question = input.value.trim();
      if (!question) return;
      input.value = '';
      void send(question);
    });

    async function send(question: string): Promise<void> {
      suggestions.replaceChildren();
      log.append(element('div', { class: 'bubble user' }, question));
      // Busy while it streams: screen readers announce the reply once, when it is whole.
      const bubble = element('div', { class: 'bubble assistant', 'aria-busy': 'true' });
      log.append(bubble);
      try {
        const { token, conversationId } = await conversation();
        const response = await call(`/conversations/${conversationId}/messages`, {
          method: 'POST',
          token,
          body: JSON.stringify({ content: question }),
          headers: { Accept: 'text/event-stream' },
        });
        if (!response.ok || !response.body || !response.headers.get('content-type')?.startsWith('text/event-stream')) throw await failure(response);
        for await (const { event, data } of serverSentEvents(response.body)) {
          if (event === 'delta') bubble.textContent += (data as { text: string }).text;
          else if (event === 'done') {
            const reply = (data as { reply: { sources: { title: string }[] } | null }).reply;
            // A person has the conversation: the bot stays silent, the agent answers on the stream.
            if (reply) showSources(bubble, reply.sources, t.sources);
            else bubble.remove();
          } else if (event === 'error') throw data;
        }
      } catch (error) {
        if (refusedOrigin(error)) return;
        bubble.classList.add('error');
        bubble.textContent = problem(error);
      }
      bubble.removeAttribute('aria-busy');
      log.scrollTop = log.scrollHeight;
    }

    function handoffButton(message: string, text: string): HTMLElement {
      const button = element('button', { type: 'button', class: 'handoff' }, text);
      button.addEventListener('click', async () => {
        button.disabled = true;
        try {
          const { token, conversationId } = await conversation();
          const response = await call(`/conversations/${conversationId}/handoff`, { method: 'POST', token, body: '{}' });
          if (!response.ok) throw await failure(response);
          log.append(element('div', { class: 'bubble assistant note', role: 'status' }, message));
          button.remove();
        } catch (error) {
          if (refusedOrigin(error)) return;
          button.disabled = false;
          log.append(element('div', { class: 'bubble assistant error' }, problem(error)));
        }
        log.scrollTop = log.scrollHeight;
      });
      return button;
    }

    function leadForm(bot: Bot, texts: typeof t): HTMLElement {
      const wrapper = element('div', { class: 'lead-area' });
      const toggle = element('button', { type: 'button', class: 'lead-toggle', 'aria-expanded': 'false' }, texts.lead);
      const form = element('form', { class: 'lead' });
      form.hidden = true;
      const field = (name: string, text: string, type: string, required: boolean) => {
        const fieldLabel = element('label', {}, text);
        fieldLabel.append(element('input', { name, type, ...(required ? { required: '' } : {}), maxlength: name === 'phone' ? '50' : '200' }));
        return fieldLabel;
      };
      form.append(
        field('name', texts.name, 'text', true),
        field('email', texts.email, 'email', true),
        field('phone', texts.phone, 'tel', bot.leadCapture.requirePhone),
        field('company', texts.company, 'text', bot.leadCapture.requireCompany),
        element('button', { type: 'submit' }, texts.submit),
      );
      toggle.addEventListener('click', () => {
        form.hidden = !form.hidden;
        toggle.setAttribute('aria-expanded', String(!form.hidden));
      });
      form.addEventListener('submit', async (event) => {
        event.preventDefault();
        const values = Object.fromEntries([...new FormData(form).entries()].filter(([, value]) => String(value).trim() !== ''));
        form.querySelector('p.error')?.remove();
        const status = element('p', { role: 'status', class: 'lead-status', tabindex: '-1' });
        try {
          const { token, conversationId } = await conversation();
          const response = await call(`/conversations/${conversationId}/lead`, { method: 'POST', token, body: JSON.stringify(values) });
          if (!response.ok) throw await failure(response);
          status.textContent = texts.thanks;
          form.replaceWith(status);
          toggle.remove();
          // The focused button is gone: keep focus in the dialog (Escape still closes it).
          status.focus();
        } catch (error) {
          if (refusedOrigin(error)) return;
          status.className = 'lead-status error';
          status.textContent = problem(error);
          form.append(status);
        }
      });
      wrapper.append(toggle, form);
      return wrapper;
    }
  }

  /**
   * The visitor's conversation: the one of this tab if its token is still valid and the person the
   * same; else, for a known visitor, their newest one not ended (started on another device, say);
   * else a new one.
   */
  async function resume(bot: Bot, log: HTMLElement): Promise<Session> {
    const stored = JSON.parse(sessionStorage.getItem(sessionKey) ?? 'null') as Session | null;
    if (stored && (stored.identity ?? null) === identityOf(identityToken) && Date.parse(stored.expiresAt) > Date.now() + 60_000) {
      const messages = await messagesOf(stored.conversationId, stored.token);
      if (messages) {
        for (const message of messages) log.append(bubbleOf(message));
        return stored;
      }
    }
    const { visitorToken, expiresAt, identity } = await openSession(bot.id);
    const conversationId = (identity !== null && (await resumeOpenConversation(visitorToken, log))) || (await startConversation(visitorToken, log));
    const session = { token: visitorToken, conversationId, expiresAt, identity };
    sessionStorage.setItem(sessionKey, JSON.stringify(session));
    return session;
  }

  /** The conversation's messages (its first page), or undefined when the service does not give them. */
  async function messagesOf(conversationId: string, token: string): Promise<Message[] | undefined> {
    const answer = await call(`/conversations/${conversationId}/messages`, { token });
    return answer.ok ? ((await answer.json()) as Schemas['WidgetMessages']).messages : undefined;
  }

  /** The known visitor's newest conversation not ended, its messages shown; undefined when there is none to resume. */
  async function resumeOpenConversation(token: string, log: HTMLElement): Promise<string | undefined> {
    const listed = await call('/conversations', { token });
    if (!listed.ok) return undefined;
    const open = ((await listed.json()) as Schemas['WidgetConversations']).conversations.find((conversation) => conversation.status !== 'ended');
    const messages = open && (await messagesOf(open.id, token));
    if (!open || !messages) return undefined;
    for (const message of messages) log.append(bubbleOf(message));
    return open.id;
  }

  /** A new conversation, its welcome message shown. */
  async function startConversation(token: string, log: HTMLElement): Promise<string> {
    const started = await call('/conversations', { method: 'POST', token, body: '{}' });
    if (!started.ok) throw await failure(started);
    const { conversation, messages } = (await started.json()) as Schemas['WidgetConversationStart'];
    for (const message of messages) log.append(bubbleOf(message));
    return conversation.id;
  }

  /**
   * A visitor session: as the identified user when the page gave a token (the same visitor on every
   * device, so nothing anonymous is kept), else as this browser's anonymous visitor. A token the
   * service refuses is dropped quietly for an anonymous session; when the tenant requires identity,
   * that one is refused too (IDENTITY_REQUIRED) and the caller says chat waits for the sign-in.
   */
  async function openSession(id: string): Promise<Schemas['WidgetSession'] & { identity: string | null }> {
    if (identityToken) {
      const token = identityToken;
      const opened = await call('/sessions', { method: 'POST', body: JSON.stringify({ botId: id, identityToken: token }) });
      if (opened.ok) {
        localStorage.removeItem(visitorTokenKey);
        return { ...((await opened.json()) as Schemas['WidgetSession']), identity: identityOf(token) };
      }
      const refused = await failure(opened);
      if (refused.error?.code !== 'INVALID_IDENTITY_TOKEN') throw refused;
      // Unless identify() brought another token meanwhile.
      if (identityToken === token) identityToken = undefined;
    }
    const previous = localStorage.getItem(visitorTokenKey) ?? undefined;
    const opened = await call('/sessions', { method: 'POST', body: JSON.stringify({ botId: id, ...(previous ? { visitorToken: previous } : {}) }) });
    if (!opened.ok) throw await failure(opened);
    const answer = (await opened.json()) as Schemas['WidgetSession'];
    localStorage.setItem(visitorTokenKey, answer.visitorToken);
    return { ...answer, identity: null };
  }

  /** The user an identity token names (its `sub`, read, not verified: only to tell one person's stored session from another's). */
  function identityOf(token: string | undefined): string | null {
    if (!token) return null;
    try {
      const payload = token.split('.')[1].replace(/-/g, '+').replace(/_/g, '/');
      return String((JSON.parse(atob(payload)) as { sub?: unknown }).sub ?? token);
    } catch {
      return token;
    }
  }

  /** Relative luminance (WCAG) of a #rgb or #rrggbb colour, 0 (black) to 1 (white). */
  function luminance(hex: string): number {
    const digits = hex.length === 4 ? [...hex.slice(1)].map((digit) => digit + digit) : [hex.slice(1, 3), hex.slice(3, 5), hex.slice(5, 7)];
    const [r, g, b] = digits.map((pair) => {
      const channel = parseInt(pair, 16) / 255;
      return channel <= 0.03928 ? channel / 12.92 : ((channel + 0.055) / 1.055) ** 2.4;
    });
    return 0.2126 * r + 0.7152 * g + 0.0722 * b;
  }

  function bubbleOf(message: Message, agentLabel = 'Support'): HTMLElement {
    const bubble = element('div', { class: `bubble ${message.role}`, 'data-message-id': message.id }, message.content);
    if (message.role === 'agent') bubble.prepend(element('div', { class: 'author' }, message.authorName ?? agentLabel));
    return bubble;
  }

  /**
   * Shows agent messages as they arrive: the conversation's server-sent events, read with fetch so
   * the visitor token stays in a header (EventSource cannot send one, and a token in the URL would
   * reach access logs). Reconnects with Last-Event-ID after a drop; stops when the conversation ends.
   */
  async function follow(session: Session, log: HTMLElement, agentLabel: string, signal: AbortSignal): Promise<void> {
    let lastEventId: string | undefined;
    for (let attempt = 0; attempt < 1000 && !signal.aborted; attempt++) {
      try {
        const response = await call(`/conversations/${session.conversationId}/events`, {
          token: session.token,
          signal,
          headers: { Accept: 'text/event-stream', ...(lastEventId ? { 'Last-Event-ID': lastEventId } : {}) },
        });
        if (response.status === 404 || response.status === 401 || response.status === 409) return;
        if (!response.ok || !response.body) throw new Error(String(response.status));
        for await (const { event, data, id } of serverSentEvents(response.body)) {
          if (id) lastEventId = id;
          if (event === 'conversation' && (data as { status: string }).status === 'ended') return;
          const message = data as Message;
          if (event !== 'message' || message.role !== 'agent' || log.querySelector(`[data-message-id="${message.id}"]`)) continue;
          log.append(bubbleOf(message, agentLabel));
          log.scrollTop = log.scrollHeight;
        }
      } catch {
        // Dropped: try again shortly.
      }
      await new Promise((resolve) => setTimeout(resolve, 2_000));
    }
  }

  function showSources(bubble: HTMLElement, sources: { title: string }[], label: string): void {
    if (!sources.length) return;
    bubble.append(element('div', { class: 'sources' }, `${label}: ${sources.map((source) => source.title).join(', ')}`));
  }

  async function failure(response: Response): Promise<ApiError> {
    return ((await response.json().catch(() => ({}))) as ApiError) ?? {};
  }

  /** The events of a `text/event-stream` body, parsed as they arrive. */
  async function* serverSentEvents(body: ReadableStream<Uint8Array>): AsyncGenerator<{ event: string; data: unknown; id?: string }> {
    const reader = body.getReader();
    const decoder = new TextDecoder();
    let buffered = '';
    for (;;) {
      const { value, done } = await reader.read();
      if (value) buffered += decoder.decode(value, { stream: true });
      let end: number;
      while ((end = buffered.indexOf('\n\n')) >= 0) {
        const block = buffered.slice(0, end);
        buffered = buffered.slice(end + 2);
        const event = /^event: (.*)$/m.exec(block)?.[1] ?? 'message';
        const data = /^data: (.*)$/m.exec(block)?.[1];
        const id = /^id: (.*)$/m.exec(block)?.[1];
        if (data !== undefined) yield { event, data: JSON.parse(data) as unknown, id };
      }
      if (done) return;
    }
  }

  void start();
})();
