import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';

export interface ReceivedMail {
  to: string[];
  /** The message as sent, quoted-printable soft breaks undone. */
  text: string;
}

/** A real SMTP server on 127.0.0.1 that keeps what it receives (no TLS, no auth). */
export class SmtpSink {
  readonly mails: ReceivedMail[] = [];

  private constructor(private readonly server: SMTPServer) {}

  static async start(): Promise<SmtpSink> {
    const server = new SMTPServer({
      authOptional: true,
      disabledCommands: ['STARTTLS', 'AUTH'],
      logger: false,
      onData(stream, session, callback) {
        const chunks: Buffer[] = [];
        stream.on('data', (chunk: Buffer) => chunks.push(chunk));
        stream.on('end', () => {
          const raw = Buffer.concat(chunks).toString('utf8');
          const text = raw.replace(/=\r?\n/g, '').replace(/=([0-9A-F]{2})/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)));
          sink.mails.push({ to: session.envelope.rcptTo.map((recipient) => recipient.address), text });
          callback();
        });
      },
    });
    const sink = new SmtpSink(server);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return sink;
  }

  get url(): string {
    return `smtp://127.0.0.1:${(this.server.server.address() as AddressInfo).port}`;
  }

  /** The first mail to `address` received within `timeoutMs`. */
  async mailTo(address: string, timeoutMs = 5_000): Promise<ReceivedMail> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const mail = this.mails.find((received) => received.to.includes(address.toLowerCase()) || received.to.includes(address));
      if (mail) return mail;
      if (Date.now() > deadline) throw new Error(`No mail to ${address} within ${timeoutMs} ms`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  close(): Promise<void> {
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}

/** The first link to the dashboard in a mail's text. */
export const dashboardLinkIn = (mail: ReceivedMail): URL => new URL(/https?:\/\/\S+\/dashboard\/\S+?token=[A-Za-z0-9_-]{43}/.exec(mail.text)![0]);
