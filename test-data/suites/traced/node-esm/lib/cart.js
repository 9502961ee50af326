import { total } from './price.js';
export const cartTotal = (items) => total(...items);
