import { z } from 'zod';
import { deliveryStates } from '../../store/store.js';
import { inputSchema, named } from './schemas.js';

export const peerSendBodySchema = named(
  'PeerMessageRequest',
  z.strictObject({
    from: z.string().min(1).describe('the sending session'),
    to: z.string().min(1).describe('the receiving session; it must accept peers'),
    text: z.string().min(1),
    messageId: z.string().min(1).max(200).optional().describe("the sender's id; resending it is harmless"),
  }),
);

export const peerSendResponseSchema = named('PeerMessageResponse', z.object({ input: inputSchema }));

export const peerListSchema = named(
  'PeerMessageList',
  z.object({
    messages: z.array(
      z.object({
        direction: z.enum(['sent', 'received']),
        peer: z.string(),
        inputId: z.string(),
        messageId: z.string(),
        state: z.enum(deliveryStates).nullable(),
        createdAt: z.number(),
      }),
    ),
  }),
);
