"""The intent rules: which kind of question a turn is, from its words and the slots already read.

Plan, memory, instance lists, GPU specs, comparisons, claims to verify, guidance, or out of scope; the
patterns here are also read by :func:`assistant.understanding.understand` for the turn's flags.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from assistant.billing_words import asks_commitment_advice, asks_price, asks_price_gap, price_question
from assistant.gpu_job_words import asks_value, job_asked
from assistant.hardware_words import named_regions
from assistant.model_search_words import asks_model_search
from assistant.reading import Scan
from tools import price_quotes
from tools.errors import UnknownNameError

if TYPE_CHECKING:
    from assistant.understanding import Intent, Slots

INJECTION_RE = (
    r"ignore\s+(?:all\s+|any\s+)?(?:the\s+)?(?:previous|prior|above|earlier|your)\s+(?:instructions?|rules|prompts?)|"
    r"disregard\s+(?:all\s+|the\s+)?(?:previous|prior|above|your)|忽略(?:之前|以上|前面|上面|你的|所有)|无视(?:之前|以上|所有)|"
    # Secrets asked of the assistant; a user's own password ("how do I reset my root password", "hashcat password
    # cracking") is a question about their systems, not an attempt on ours.
    r"system\s*prompt|系统提示|提示词|api[\s_\-]*key|密钥|\byour\s+(?:\w+\s+)?(?:secrets?|passwords?)\b|"
    r"\bsecret\s+(?:keys?|instructions?|prompts?|rules)\b|"
    r"(?<!reset\s)(?<!change\s)\b(?:the|its)\s+(?:root\s+|admin\s+|server\s+)?password\s+(?:of|for|to)\s+(?:the\s+)?"
    r"(?:server|system|machine)\s+(?:you|that\s+runs\s+you)|你的\S{0,4}密码|(?:系统|服务器|管理员)(?:的)?密码是|"
    r"token\s+of\s+your|"
    r"developer\s+mode|jailbreak|\bDAN\b|越狱|you\s+are\s+now|pretend\s+(?:to\s+be|you)|act\s+as|扮演|"
    r"reveal\s+your|print\s+your|show\s+(?:me\s+)?your\s+(?:instructions|prompt|config)|"
    r"环境变量|environment\s+variables?|\benv\b"
)
OUT_OF_SCOPE_RE = (
    r"诗|poem|poetry|haiku|天气|weather|笑话|joke|菜谱|recipe|股票|stock\s+price|足球|football|电影|movie|"
    r"翻译|translate|写一篇|作文|essay|星座|horoscope|lottery|彩票|歌词|lyrics|小说|story"
)
_DOMAIN_RE = (
    r"gpu|显卡|显存|算力|实例|instance|ecs|阿里云|aliyun|alibaba|model|模型|llm|大模型|推理|训练|微调|部署|"
    r"vllm|kv|cache|量化|quant|awq|gptq|token|价格|price|cost|成本|费用|多少钱|tflops|nvlink|cuda|vram|memory|"
    r"内存|带宽|bandwidth|fine|lora|serving|inference|deploy|avx|hbm|gddr|fp8|bf16|fp16|int4|int8|tensor|"
    r"pcie|rdma|cloud|云|卡|region|地域|计费|包月|包年|按量|抢占式|竞价|spot|subscription|pay-as-you-go|"
    r"租|机器|服务器|助手|chatbot|聊天机器人"
)
# the KV cache's size is a memory figure: "KV cache 有多大", "how big is the KV cache"
KV_SIZE_RE = (
    r"kv[\s\-_]*(?:cache|缓存)\s*(?:的)?\s*(?:有|要|占|需要|大概|大约)?\s*(?:多大|多少)|"
    r"how\s+(?:big|large|much\s+(?:memory|vram))\s+(?:is|will|would)\s+(?:the\s+)?kv[\s\-_]*cache|"
    r"kv[\s\-_]*cache\s+(?:size|footprint|usage)|size\s+of\s+(?:the\s+)?kv[\s\-_]*cache"
)
MEMORY_RE = (
    KV_SIZE_RE
    + "|"
    r"多少显存|显存(?:需求|占用|要多少|多少|够不够|够吗|多大)|需要多少(?:显存|内存|gpu\s*内存)|"
    r"how\s+much\s+(?:gpu\s+)?(?:vram|memory|gpu\s+memory)|(?:vram|memory)\s+(?:do(?:es)?\s+(?:i|it|we)\s+need|needed|required|requirement|usage|footprint)|"
    r"memory\s+estimate|estimate\s+(?:the\s+)?(?:gpu\s+)?memory|"
    # "what's the vram for X", "what is the memory footprint of X": the figure asked by its noun
    r"\bwhat(?:'s|s|\s+is|\s+would\s+be)\s+(?:the\s+)?(?:gpu\s+)?(?:vram|memory)(?:\s+(?:usage|footprint|need))?\s+"
    r"(?:for|of)\b|"
    # "memory need of X", "VRAM requirements for X", "X 的显存需求/要求": the figure, not a plan.
    r"(?:vram|memory)\s+(?:needs?|needed|requirements?)\s+(?:of|for)\b|(?:vram|memory)\s+requirements?\b|"
    # "gemma 2 9b vram for inference?", "qwen 7b vram?": the figure asked by its noun after the model
    r"\b(?:vram|gpu\s+memory)\s+(?:for|to)\s+(?:inference|serving|serve|training|fine[\s\-]*tun\w*|run\w*|host\w*)\b|"
    r"\bvram\s*(?:usage\s*)?\?|"
    r"显存(?:要求|需要多少|得多少|至少要)|(?:占|吃|用)(?:用)?(?:掉)?多少(?:的)?显存|需要?多大(?:的)?显存|"
    r"(?<![\d.])\d{1,6}(?:\.\d{1,3})?\s*gi?b?\s*(?:的)?\s*显存|needs?\s+(?:about\s+)?\d{1,6}(?:\.\d{1,3})?\s*gi?b\b"
)
# "...and which instance?": a memory question that also asks where to run it wants the full plan.
_PLAN_CUE_RE = (
    r"which\s+(?:instance|gpu|card|machine)|what\s+(?:instance|gpu|machine)|how\s+many\s+(?:gpus|cards)|"
    r"选什么|选哪|哪(?:个|种|款)(?:实例|规格|卡|gpu|机器)|什么(?:实例|规格|配置|卡|方案)|几张卡|多少张|推荐.{0,6}(?:实例|规格|配置|方案)|"
    r"(?:有什么|有啥|求)推荐\s*(?:吗)?\s*[?？。!！]?\s*$|"
    # "想搞个私有化的大模型": setting one up is asked for, the hardware with it
    r"(?:想|要|打算|准备|计划)\s*(?:搞|搭|弄|建|上)\s*(?:个|一个|一套|套)\s*.{0,8}(?:大模型|模型|llm|ai)|"
    # renting: "阿里云上最便宜租哪个", "what should I rent", "cheapest instance" ask for an instance, not a figure
    r"租(?:哪|什么|啥)|(?:买|开)哪(?:个|种|台)|(?:用|选|买|租|上)(?:什么|啥|哪种|哪个)\s*(?:样的)?\s*(?:机器|服务器|显卡|gpu)|最便宜的?(?:实例|规格|方案|机器|卡)?|"
    r"\b(?:rent|lease)\b|cheapest\s+(?:instance|option|way|setup|gpu|machine|box)|"
    # "what's a sensible starter setup to host X?", "recommend a box": the hardware is asked for
    r"\b(?:what|which)(?:'s|\s+is|\s+would\s+be)?\s+(?:a|the)\s+(?:[\w\-]+\s+){0,3}?(?:setup|set-up|config(?:uration)?|box|"
    r"rig|hardware)\b|recommend\s+(?:a|the|an)\s+(?:[\w\-]+\s+){0,2}?(?:setup|config(?:uration)?|box|instance|machine)\b"
)
_COMPARE_RE = (
    r"\bvs\.?\b|versus|对比|比较|区别|差别|compare|comparison|difference|better|faster|slower|"
    r"比.{0,8}(?:快|慢|强|弱|好|差)|哪个|which\s+is|"
    r"怎么选|如何选|咋选|选哪|(?:pick|choose|decide)\s+between"  # "gn7i 和 gn8is 怎么选", "how do I pick between"
)
_OR_RE = r"|\bor\b|还是|或者|或是"  # two named sides joined by "or" weigh them too ("gn7i or gn6i?")
_SPEC_RE = (
    r"参数|规格|规格参数|spec|specs|specification|显存多大|多大显存|带宽|bandwidth|算力|tflops|性能|performance|"
    r"memory|显存|fp8|nvlink"
)
_LIST_RE = (
    r"哪些|有什么(?!区别|不同|差别|差异)|列出|列一下|都有|所有|全部|list|which\s+instances?|what\s+instances?|"
    r"show\s+(?:me\s+)?(?:all\s+)?(?:the\s+)?instances?|instance\s+types?|实例规格|规格有|"
    # "阿里云真的有 H800 实例吗", "does Alibaba offer H100 instances?": whether the catalog has any
    r"有(?:没有)?\s*[\w\-]{0,12}\s*(?:的)?\s*(?:实例|机型)\s*(?:吗|么|嘛|[?？])|有没有\s*[\w\-]{1,12}\s*(?:的)?\s*(?:实例|机型|卡)|"
    r"\b(?:do|does)\s+(?:you|alibaba|aliyun|they|alibaba\s+cloud)\s+(?:\w+\s+)?(?:have|offer|sell|provide)\s+[\w\-]+\s+"
    r"(?:instances?|gpus?|machines?)"
)
EXPLAIN_RE = (
    # "租什么机器", "用什么实例", "需要什么配置" ask for hardware, not for an explanation
    r"(?<![租用买选开配上要挑荐])什么|区别|差别|为什么|怎么理解|是否|原理|介绍|解释|含义|意思|what\s+is|what\s+are|what's|why|difference|"
    r"explain|how\s+does|how\s+do\s+(?:i|you)\s+(?:choose|pick)|tell\s+me\s+about|meaning|"
    # Suitability ("抢占式实例适合训练吗", "is the H20 good for training?") is a question for the guidance.
    r"适合|适不适合|合适吗|值得|划算吗|suitable|suited|good\s+(?:for|choice)|worth\s+it|recommended\s+for"
)
# "how many GPUs for 10 users" counts hardware, not users: the count asked is never a GPU, card or node
CAPACITY_RE = (
    r"how\s+many\s+(?:concurrent|simultaneous|parallel)|how\s+many\s+(?:users|requests|sequences)|"
    r"max(?:imum)?\s+concurren\w*|concurrency\s+capacity|"
    # "max batch size at 4k", "最大 batch 能开多少": the sequences the KV budget holds at once
    r"(?:max(?:imum)?|largest|biggest)\s+(?:inference\s+|serving\s+|decode\s+)?batch(?:\s*size)?|"
    r"(?:最大|最多)\s*(?:的)?\s*batch|batch\s*(?:size)?\s*(?:最大|最多|能开多大|能开多少|上限)|"
    r"(?:多少|几)(?:个|路)?\s*(?:[\w.]{1,8}\s*(?:tokens?)?\s*的)?\s*并发|并发(?:能|可以)?(?:到|有|撑|支持)?多少|最大并发|能(?:撑|支持|扛)(?:住)?多少|"
    # Workload area (issue 8): "how many 8k conversations can it hold", "最多能同时服务多少人", "能同时接多少个请求"
    r"how\s+many\s+(?!(?:gpus?|cards?|instances?|nodes?|machines?|servers?|boxes|[a-z]\d{2,3}\w*)\b)(?:\S+\s+){0,3}?(?:users|requests|sequences|sessions|chats|conversations|streams)\b"
    r"(?:\s+\S+){0,6}?\s+(?:fit|hold|serve|handle|support|run)|"
    r"同时(?:服务|接|处理|支持|承载|在线|跑)(?:多少|几)|(?:能|可以)(?:同时)?(?:接|服务|处理|承载|容纳)(?:多少|几)|"
    r"max(?:imum)?\s+number\s+of\s+(?:\S+\s+){0,2}?(?:users|requests|sequences|sessions|chats|conversations)|"
    r"(?<!memory\s)(?<!vram\s)\bcapacity\s+(?:of|for)\b"
    r"|"
    # "how many 64k-context sessions can it hold?": the count, whatever the sessions are called.
    r"how\s+many\s+(?!(?:gpus?|cards?|instances?|nodes?|machines?|servers?|boxes|[a-z]\d{2,3}\w*)\b)(?:[\w\-]+\s+){0,3}?(?:sessions|conversations|chats|streams|users|requests|sequences)\b.{0,60}"
    r"\b(?:hold|fit|serve|support|handle|take|run)\b|"
    # "how many could it hold at 16k?": the count of what the deployment under discussion holds
    r"how\s+many\s+(?:\w+\s+){0,2}?(?:could|can|would|will|does)\s+(?:it|this|that|they|one|each)\s+"
    r"(?:hold|fit|serve|handle|support|take)\b|"
    # "... how many 8k sessions total?": the count asked with no verb, the question ending on it
    r"how\s+many\s+(?!(?:gpus?|cards?|instances?|nodes?|machines?|servers?|boxes|[a-z]\d{2,3}\w*)\b)(?:[\w\-]+\s+){0,3}?(?:sessions|conversations|chats|streams|users|requests|sequences)\s*"
    r"(?:in\s+total|total|altogether|at\s+once|at\s+a\s+time|simultaneously|concurrently|in\s+parallel)?\s*(?:[?？.!]|$)|"
    r"(?:多少|几)(?:个|路)?\s*并发|并发(?:能|可以)?(?:到|有|撑|支持)?多少|最大并发|能(?:撑|支持|扛)(?:住)?多少"
    # "能同时服务多少个 8k 的会话", "最多容纳几路": the count, however the serving is phrased.
    r"|同时(?:服务|支持|处理|承载|跑|接待)?\s*(?:多少|几)|(?:服务|支持|承载|容纳|接待)(?:得了)?\s*(?:多少|几)\s*(?:个|路|位)?\s*"
    r"(?:\d+\s*[kK]\s*(?:的)?\s*)?(?:会话|用户|请求|人|并发|对话)"
    # "how many people can chat at once", "同时撑多少个", "扛得住几路": the count, in everyday words (i8verd)
    r"|how\s+many\s+(?:people|users|folks|customers|clients|employees|staff|students|agents|requests|sessions|"
    r"conversations|chats)\s+(?:can|could|will|would)\s+(?:\S+\s+){0,8}?(?:at\s+once|simultaneously|concurrently|"
    r"in\s+parallel|at\s+the\s+same\s+time)|(?:撑|扛|带|顶)(?:得住|得了|住)?\s*(?:多少|几)\s*(?:个|路|位|人)?"
)
VERDICT_RE = (
    r"能跑吗|能跑.{0,40}吗|能不能|跑得动|跑得了|够不够|够吗|够用吗|行不行|行吗|可以吗|能用吗|合适吗|是否(?:可以|够|合适)|放得下|装得下|"
    r"good\s+(?:choice|fit|option|idea)|\benough\b|sufficient|can\s+(?:it|i|we|this|that|one)\s+(?:run|serve|fit|handle)|"
    # "Can I LoRA fine-tune Qwen2.5-14B on a single L20?": a yes/no question about the named GPU
    r"^\s*can\s+(?:i|we)\s+(?:[\w\-]+\s+){0,2}?(?:train|fine[\s\-]?tune|finetune|pre[\s\-]?train|deploy|host)\b|"
    r"(?:will|does|would)\s+(?:it|this|that)\s+(?:fit|work|run(?!\s+(?:(?:per|a|each)\s+(?:month|year|day|hour)|me|us)\b))|\bfits?\?|viable|is\s+\S+\s+ok\b"
    # "will a single 4090 handle it?", "扛得住吗": whether named hardware copes with the load is a verdict too.
    r"|\bhandle\b|\bcope\b|hold\s+up|扛得住|扛不住|撑得住|撑不住|吃得消|带得动|带不动|hold\s+it"
    r"|can\s+(?:i|we)\s+(?:fine[\s\-]*tune|finetune|train|pre[\s\-]?train)|(?:能|可以)(?:微调|训练|预训练|部署|跑|用).{0,40}吗|划算吗|值得吗|值不值|够(?:跑|用|部署|运行).{0,40}吗|够了吧|够了吗|就够了|适合.{0,40}吗|适不适合|性价比(?:高吗|如何|怎么样)|"
    r"\bsensible\b|\breasonable\s+(?:pick|choice|option)|worth\s+(?:it|getting|buying|using|paying)|"
    # "what's the most cost-effective way / most suitable box?" asks which, not whether
    r"(?<!most\s)cost[\s\-]effective|good\s+value|good\s+(?:for|enough)|\benuf\b|\bfine\s+for\b|\bok(?:ay)?\s+for\b|"
    r"(?<!most\s)suitable|"
    # "Do we really need an A100?" asks yes or no; "What instances do we need?" asks which (clause start only)
    r"(?:^|[,.;:!?，。；：！？]\s*|\b(?:so|but|and)\s+)do\s+(?:i|we)\s+(?:really\s+)?need\b|有必要|需不需要|"
    r"would\s+(?:a|an|one|the|this|that|it|two|\d+)\b.{0,60}\b(?:do|suffice|cut\s+it|be\s+ok(?:ay)?)\b|"
    r"(?:will|would|could)\s+\S+(?:\s+\S+)?\s+(?:work|fit|do\s+the\s+job|suffice|be\s+enough)\b|"
    r"\bfits?\s+(?:in|on|into|onto)\b|\bdoable\b|\bfeasible\b|be\s+able\s+to\s+(?:run|serve|hold|handle|fit)|"
    r"\bcan\s+(?:a|an|one|the|two|\d+|my|our)\b[^?？]{0,40}\b(?:run|serve|fit|handle|hold|take|host)\b|"
    r"顶得住|hold\s*(?:得|不)住|稳不稳|稳吗|没问题吧|没问题吗|靠谱吗|行吗|能行吗|可行吗|能上吗"
    # "is an A100 overkill for a 7B?", "can we host X on ...?", "大材小用吗": a verdict on the named hardware too.
    r"|\boverkill\b|\bover[\s\-]?(?:sized|provisioned|spec(?:ced|'d)?)\b|大材小用|杀鸡用牛刀|浪费吗|太夸张|过头|\bexcessive\b|"
    r"can\s+(?:we|i|you)\s+(?:host|deploy|squeeze|get\s+away\s+with)\b"
    # "非得用 A100 吗", "are we overdoing it?": whether the named hardware is needed at all (i8verd)
    r"|非得|非要|一定要(?:用|上)|必须(?:要|上|用)|\boverdo\w*|\boverboard\b|过度配置|配置(?:过|太)高"
    r"|\brun\s+(?:ok(?:ay)?|fine|well|smoothly|properly)\b|跑得(?:顺|好|流畅)吗?|跑得起来吗|能不能跑"
)
TOPICS = {
    "kv cache": r"kv\s*cache|kv\s*缓存",
    "quantization": r"量化|quantiz|quantis|awq|gptq|int4|int8|fp8",
    "avx512": r"avx[\s\-_]*512|avx",
    "nvlink": r"nvlink|pcie",
    "vllm": r"vllm",
    "zero": r"zero[\s\-]*[123]|deepspeed|fsdp",
    "spot": r"抢占式|竞价|spot\s+instances?|preemptible",
    "price": r"价格|price|cost|成本|费用|多少钱|贵|cheap|how\s+much\s+(?:is|does|would)\b|per[\s\-]hour|hourly\s+rate",
    "tflops": r"tflops|算力",
}


# A serving engine's own settings (vLLM flags): asked about, they are guidance even next to a GPU name.
_ENGINE_SETTING_RE = (
    r"gpu[_\-\s]?memory[_\-\s]?utili[sz]ation|max[_\-\s]model[_\-\s]len|max[_\-\s]num[_\-\s](?:seqs|batched)|"
    r"tensor[_\-\s]parallel[_\-\s]size|enforce[_\-\s]eager|kv[_\-\s]cache[_\-\s]dtype|swap[_\-\s]space"
)
GREETING_RE = (
    r"\s*(?:你好|您好|嗨|哈喽|hi|hello|hey|good\s+(?:morning|afternoon|evening))"
    r"[\s!.。！,，~]*(?:呀|啊)?[\s!.。！]*"
)
# "help me pick a GPU", "帮我选个实例": a sizing request with nothing to size yet; ask for the model and task.
_PICK_RE = (
    r"(?:help\s+me\s+|can\s+you\s+|please\s+)?(?:pick|choose|select|recommend)\s+(?:me\s+)?(?:an?\s+|the\s+)?"
    r"(?:gpu|instance|card|machine)|帮我选|推荐(?:一下|一个|个)?(?:gpu|显卡|卡|实例)|选(?:个|一个|什么)(?:gpu|显卡|卡|实例)"
)


# "what GPUs does Alibaba have", "阿里云有哪些 GPU 可选", "list all the GPUs": the line-up as a whole
_LINEUP_RE = (
    r"(?:哪些|什么|有啥|几种|多少种)\s*(?:型号的?|种类的?|款)?\s*(?:gpu|显卡|卡|gpu\s*卡|gpu\s*型号)(?!.{0,6}(?:跑|部署|微调|训练))|"
    r"(?:gpu|显卡)\s*(?:有哪些|都有什么|型号有哪些|列表|清单)|"
    r"\b(?:what|which)\s+(?:kinds?\s+of\s+|types?\s+of\s+)?(?:gpus|graphics\s+cards|cards|accelerators)\s+"
    r"(?:does|do|are|is|can|could)\b(?!.{0,40}\b(?:run|serve|fit|hold|train|fine|host)\w*)|"
    r"\blist\s+(?:all\s+|every\s+)?(?:of\s+)?(?:the\s+|your\s+)?(?:available\s+)?gpus\b|"
    r"\b(?:available|supported|offered)\s+gpus\b|\bgpu\s+(?:line[\s\-]?up|options|catalog(?:ue)?|offerings)\b"
)


# Serving engines: naming two ("vLLM or TGI?"), or weighing a local one ("is Ollama good enough?"), asks which
# engine to run, a question for the guidance even when a model is named; the sizing is asked in other words.
_ENGINES = (
    r"vllm|\btgi\b|text[\s\-]generation[\s\-]inference|ollama|llama\.?cpp|lmdeploy|sglang|tensorrt[\s\-]*llm|"
    r"trt[\s\-]*llm"
)
_LOCAL_ENGINE_RE = (
    r"(?:\btgi\b|text[\s\-]generation[\s\-]inference|ollama|llama\.?cpp).{0,60}(?:enough|good|\bok(?:ay)?\b|fine|suitable|"
    r"production|should|够|适合|行不行|可以吗|能不能|生产)|(?:should|can|could)\s+(?:we|i)\s+(?:just\s+)?use\s+(?:ollama|tgi|llama)"
)


# What the deployment is for: who uses it or what it does. Head-counts and rates are read elsewhere.
_USE_RE = (
    r"\b(?:employees?|staff|colleagues|co-?workers|team(?:mates)?|company|companies|org(?:ani[sz]ation)?|"
    r"internal(?:ly)?|in-house|customers?|clients?|students|agents|users|chat\s?bot|assistant|copilot|rag|"
    r"knowledge\s+base|q&a|helpdesk|help\s+desk|support\s+(?:bot|team|desk)|demo|poc|proof\s+of\s+concept|"
    r"prototype|self[\s\-]?host(?:ed|ing)?|on[\s\-]?prem\w*|hackathon|workshop|course|class|side[\s\-]project|"
    r"hobby|personal|playground|app|product|feature|saas|website|platform|endpoint|search)\b|"
    r"员工|同事|团队|公司|企业|单位|内部|部门|用户|客户|客服|知识库|问答|助手|演示|原型|私有化|自建|本地部署|给.{0,8}用|"
    r"黑客松|比赛|课程|自用|个人|律所|医院|学校|实验室|产品|应用|小程序|网站|平台|私有化"
)


def open_use(text: str) -> bool:
    """Whether the question says what a deployment is for ("for our 200 employees", "RAG demo", "给公司用")."""
    return bool(re.search(_USE_RE, text, re.IGNORECASE))


def asks_sizing(text: str) -> bool:
    """Whether the question asks for a figure of its own: an instance, a GPU count, memory or capacity."""
    return any(re.search(p, text, re.IGNORECASE) for p in (_PLAN_CUE_RE, MEMORY_RE, CAPACITY_RE))


def asks_engine_choice(text: str) -> bool:
    """Whether the question asks which serving engine to run (not how big an instance)."""
    if re.search(_PLAN_CUE_RE, text, re.IGNORECASE):
        return False
    engines = {m.group(0).lower() for m in re.finditer(_ENGINES, text, re.IGNORECASE)}
    return len(engines) >= 2 or bool(re.search(_LOCAL_ENGINE_RE, text, re.IGNORECASE))


def _priced(instance_type: str, region: str | None) -> bool:
    try:
        return price_quotes.quote(instance_type, region) is not None
    except UnknownNameError:
        return True  # an unknown type is the catalog answer's to correct


def _fitness_or_value(s: Slots, text: str) -> bool:
    """Whether one GPU (or family) is asked about for a job or for its value, with no load to size."""
    if s.concurrency or s.qps or s.train_tokens or s.budget_cny_month or s.instance_types or s.media:
        return False
    one = len(s.gpu_mentions) + len(s.families) == 1
    if one and job_asked(text):
        return True
    return one and asks_value(text) and not re.search(r"多少钱|how\s+much|\bprices?\b|价格|费用|报价", text)


_SPEC_FIGURE_RE = r"带宽|显存|算力|bandwidth|memory|tflops"
# "is the T4 the slowest?", "哪个带宽最高": the extreme of a figure among the cards named
SUPERLATIVE_RE = r"slowest|fastest|highest|lowest|largest|smallest|least|most|最快|最慢|最高|最低|最大|最小|最少|最多"

def intent(scan: Scan, s: Slots, raw: str) -> Intent:
    text = raw.lower()
    has_workload = bool(s.model or s.model_error or s.size_b)
    if not has_workload and not (s.gpu_mentions or s.families or s.topics) and re.search(_PICK_RE, text):
        return "plan"
    if re.search(OUT_OF_SCOPE_RE, text) and not (has_workload or s.gpu_mentions or s.families):
        return "out_of_scope"
    named = bool(s.gpu_mentions or s.families or s.instance_types)
    if not named and asks_engine_choice(text):
        return "guidance"  # "vLLM or TGI for qwen 14b?", "is Ollama good enough for our team?"
    if not (named or has_workload or s.media) and re.search(_LINEUP_RE, text):
        return "gpu_lineup"  # "what GPUs does Alibaba have?": the catalog's GPUs, not a passage about them
    if (named or s.budget_cny_month) and not s.model and not s.media and asks_model_search(text):
        return "model_search"  # "一张 L20 最大能跑多大的模型": the hardware is given, the model is asked for
    if not has_workload and _fitness_or_value(s, text):
        return "guidance"  # "Is the H20 a sensible pick for pretraining?", "gn6v 还值得买吗": no model asked for
    explains = re.search(r"为什么|区别|适合|\bwhy\b|difference|suit", text)
    explains = explains and not asks_price_gap(text)  # "the monthly cost difference" asks for figures
    # "how much is ecs.gn8is.4xlarge in Beijing?" with no price known there: the price answer gives the
    # nearest known price (the catalog answer only says there is none)
    priced_type = bool(s.instance_types and s.region) and asks_price(text)
    priced_type = priced_type and not _priced(s.instance_types[0], s.region)
    # "monthly cost of 4 x A100 80GB in Hangzhou?": one GPU (and count) priced, no model to size (i8verd)
    gpu_priced = len(s.gpu_mentions) == 1 and not (s.families or s.instance_types) and asks_price(text)
    # "gn8is 的价格是多少", "how much is gn7i": one family's prices (the guidance only describes the family)
    gpu_priced = gpu_priced or (len(s.families) == 1 and not s.instance_types and asks_price(text))
    # "ecs.X in Singapore vs Hangzhou?": a price in each region named (the catalog answer prices one)
    priced_type = priced_type or bool(s.instance_types and len(named_regions(text)) >= 2 and asks_price(text))
    if not has_workload and (price_question(text, named) or priced_type or gpu_priced) and not explains:
        return "prices"  # "哪个地域 A10 最便宜", "gn7i 包月多少钱", "那按量呢?": region and billing prices
    if asks_commitment_advice(text) and not has_workload:
        return "guidance"  # "moving from A10 to L20: savings plan or reserved instances?" is about billing
    # "带宽 A100 > A10 > T4，具体各是多少": three GPUs' figures asked side by side are a comparison too
    each = re.search(r"各|分别|每个|respectively|each|among|" + SUPERLATIVE_RE, text)
    each = each and re.search(_SPEC_FIGURE_RE, text)
    two = len(s.gpu_mentions) == 2
    if len(s.gpu_mentions) >= 2 and not has_workload and (re.search(_COMPARE_RE, text) or two or each):
        return "compare"
    # "gn7i 和 gn7e 有什么区别", "gn7i or gn6i?": compare the families' GPUs
    if len(s.families) >= 2 and not has_workload and not s.instance_types and re.search(_COMPARE_RE + _OR_RE, text):
        return "compare"
    if (s.families or s.instance_types) and s.gpu_mentions and not has_workload:
        return "verify"
    if s.instance_types and not has_workload:
        return "instances"
    # "VRAM headroom on an L20 vs an A10?": two GPUs named weigh them on the workload (a comparison, planned)
    compared = len(s.gpu_mentions) + len(s.families) >= 2
    if re.search(MEMORY_RE, text) and has_workload and not s.gpu and not compared and not re.search(_PLAN_CUE_RE, text):
        return "memory"
    if has_workload:
        return "plan"
    if (s.families or s.gpu_mentions) and re.search(_LIST_RE, text):
        return "instances"
    if re.search(_ENGINE_SETTING_RE, text) and not has_workload:
        return "guidance"  # "gpu-memory-utilization 0.95 on our A10?": a serving setting, not the card's spec
    # "an L40S" is one card, not a workload: "how many gigs of vram on an L40S?" asks for the spec.
    numbers = s.concurrency or s.qps or s.train_tokens or s.budget_cny_month or (s.gpus or 1) > 1 or s.context
    if len(s.gpu_mentions) == 1 and not s.families and not numbers and (s.precision or re.search(_SPEC_RE, text)):
        return "gpu_specs"  # "V100 能跑 bf16 吗", "H20 显存多大": about the GPU, not a workload
    workload_words = (
        s.task
        or s.task_hint
        or s.concurrency
        or s.qps
        or s.train_tokens
        or s.budget_cny_month
        or (s.gpus or 1) > 1
        or (s.follow_up and (s.precision or s.context or s.gpu or s.batch))
    )
    if workload_words and not s.families and (not s.asks_explanation or re.search(_PLAN_CUE_RE, text)):
        return "plan"  # "给公司搭个知识库问答，租什么机器？": "什么" asks which machine, not for an explanation
    if len(s.gpu_mentions) == 1 and not s.families and re.search(_SPEC_RE, text):
        return "gpu_specs"
    if not (named or has_workload) and re.search(_PLAN_CUE_RE, text) and open_use(text):
        return "plan"  # "老板让我搭个像 ChatGPT 的东西给全公司用，租啥": hardware for a use, no model yet
    if not re.search(_DOMAIN_RE, text) and not (s.families or s.gpu_mentions or s.topics):
        return "out_of_scope"
    return "guidance"
