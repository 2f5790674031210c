import TelegramBot from 'node-telegram-bot-api';
import type { NotificationChannel } from './channel.js';

export interface TelegramChannelOptions {
  token: string;
  /** Default chat. */
  chatId: string;
  /** Replaces https://api.telegram.org (node-telegram-bot-api's `baseApiUrl`). */
  baseApiUrl?: string;
}

export function createTelegramChannel(options: TelegramChannelOptions): NotificationChannel {
  // No polling: the service only sends.
  const bot = new TelegramBot(options.token, { polling: false, baseApiUrl: options.baseApiUrl });
  return {
    name: 'telegram',
    async send(message, recipients) {
      const chats = recipients?.length ? recipients : [options.chatId];
      const text = message.subject ? `${message.subject}\n\n${message.text}` : message.text;
      for (const chat of chats) await bot.sendMessage(chat, text);
    },
  };
}
