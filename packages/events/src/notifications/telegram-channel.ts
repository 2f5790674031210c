import type TelegramBot from 'node-telegram-bot-api';
import { providerError, type NotificationChannel } from './channel.js';

export interface TelegramChannelOptions {
  token: string;
  /** Default chat. */
  chatId: string;
  /** Replaces https://api.telegram.org (node-telegram-bot-api's `baseApiUrl`). */
  baseApiUrl?: string;
}

export function createTelegramChannel(options: TelegramChannelOptions): NotificationChannel {
  // Loaded on first use (a quarter of a second to import). No polling: the service only sends.
  let bot: Promise<TelegramBot> | undefined;
  const telegram = () =>
    (bot ??= import('node-telegram-bot-api').then(
      ({ default: Bot }) => new Bot(options.token, { polling: false, baseApiUrl: options.baseApiUrl }),
    ));
  return {
    name: 'telegram',
    async send(message, recipients) {
      const chats = recipients?.length ? recipients : [options.chatId];
      const text = message.subject ? `${message.subject}\n\n${message.text}` : message.text;
      const api = await telegram();
      try {
        for (const chat of chats) await api.sendMessage(chat, text);
      } catch (error) {
        throw providerError('Telegram', error, [options.token]);
      }
    },
  };
}
